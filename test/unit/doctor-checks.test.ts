// How doctor runs its checks: side by side, in the list's order, each within its own time bound, so one that hangs
// (a herdr that never answers) or throws is reported as an error with a fix while the others still report.
import { expect, test } from "vitest";
import { type DoctorCheck, type DoctorContext, runChecks } from "../../app/agent_computer/src/cli/admin/doctor-check.ts";
import { doctorChecks } from "../../app/agent_computer/src/cli/admin/doctor-checks.ts";

const ctx: DoctorContext = {
  env: {},
  launchEnv: {},
  stateDir: "/nonexistent",
  now: Date.now,
  inspection: () => Promise.reject(new Error("not used")),
};

test("a check that hangs or throws is an error with a fix; the others report, in order", async () => {
  const checks: DoctorCheck[] = [
    { name: "hangs", timeoutMs: 50, run: () => new Promise(() => {}) },
    { name: "fine", run: async () => ({ status: "ok", detail: "all good" }) },
    {
      name: "throws",
      run: async () => {
        throw Object.assign(new Error("boom"), { hint: "do this" });
      },
    },
  ];
  const started = Date.now();
  const reports = await runChecks(checks, ctx);
  expect(Date.now() - started).toBeLessThan(2000);
  expect(reports).toEqual([
    { name: "hangs", status: "error", detail: "no answer within 0.05 s", fix: expect.any(String) },
    { name: "fine", status: "ok", detail: "all good" },
    { name: "throws", status: "error", detail: "the check failed: boom", fix: "do this" },
  ]);
});

test("every check of the list has its own name and a bound no longer than 15 s", () => {
  const names = doctorChecks.map((c) => c.name);
  expect(new Set(names).size).toBe(names.length);
  for (const check of doctorChecks) expect(check.timeoutMs ?? 5000).toBeLessThanOrEqual(15_000);
});

// Which endpoint addresses the worker refuses without --allow-private: loopback, private, link-local (cloud
// metadata), CGNAT, benchmarking, multicast, unspecified, unique-local, and IPv4 addresses dressed as IPv6, even a
// public one (webhook-special-addresses.test.ts walks every registry block).
import { describe, expect, test } from "vitest";
import { isPrivateAddress, isPrivateHost } from "../../app/agent_computer/src/domain/outbound-webhooks/addresses.ts";
import { webhookUrlProblem } from "../../app/agent_computer/src/domain/outbound-webhooks/url.ts";

describe("isPrivateAddress", () => {
  test.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.0.0.1",
    "172.16.0.1",
    "172.31.255.255",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "198.18.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "[::1]",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "ff02::1",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:a9fe:a9fe",
    "::7f00:1",
    "::ffff:808:808",
  ])("%s is not public", (address) => expect(isPrivateAddress(address)).toBe(true));

  test.each(["8.8.8.8", "172.32.0.1", "172.15.255.255", "100.128.0.1", "192.169.0.1", "2606:4700::1111"])(
    "%s is public",
    (address) => expect(isPrivateAddress(address)).toBe(false),
  );
});

describe("webhookUrlProblem", () => {
  test("localhost names and IP literals in any spelling the URL parser accepts are refused without --allow-private", () => {
    for (const url of [
      "http://localhost/x",
      "http://api.localhost./x",
      "http://2130706433/x",
      "http://0x7f.1/x",
      "http://[::ffff:127.0.0.1]/x",
      "http://[::ffff:169.254.169.254]/latest",
    ]) {
      expect(webhookUrlProblem(url, false), url).toMatch(/--allow-private/);
      expect(webhookUrlProblem(url, true), url).toBeUndefined();
    }
    expect(isPrivateHost("hooks.example.com")).toBe(false);
    expect(webhookUrlProblem("https://hooks.example.com/x?key=1", false)).toBeUndefined();
  });
});

// The outbound address filter against every block of the IANA IPv4 and IPv6 Special-Purpose Address Registries
// (https://www.iana.org/assignments/iana-ipv4-special-registry/, .../iana-ipv6-special-registry/), written out here
// with the registry's names and its "Globally Reachable" column: each block's first and last address is refused
// unless the registry calls the block globally reachable. One stricter choice is marked: the NAT64 prefix. Then the
// IPv6 forms that carry an IPv4 address, the ranges outside the registries (multicast, site-local, unassigned IPv6),
// and ordinary public addresses, which pass.
import { describe, expect, test } from "vitest";
import { isPrivateAddress, isPrivateHost } from "../../app/agent_computer/src/domain/outbound-webhooks/addresses.ts";

type Row = [block: string, name: string, registryGloballyReachable: boolean | "N/A", refused: boolean];

const IPV4_REGISTRY: Row[] = [
  ["0.0.0.0/8", '"This network"', false, true],
  ["0.0.0.0/32", '"This host on this network"', false, true],
  ["10.0.0.0/8", "Private-Use", false, true],
  ["100.64.0.0/10", "Shared Address Space", false, true],
  ["127.0.0.0/8", "Loopback", false, true],
  ["169.254.0.0/16", "Link Local", false, true],
  ["172.16.0.0/12", "Private-Use", false, true],
  ["192.0.0.0/24", "IETF Protocol Assignments", false, true],
  ["192.0.0.0/29", "IPv4 Service Continuity Prefix", false, true],
  ["192.0.0.8/32", "IPv4 dummy address", false, true],
  ["192.0.0.9/32", "Port Control Protocol Anycast", true, false],
  ["192.0.0.10/32", "Traversal Using Relays around NAT Anycast", true, false],
  ["192.0.0.170/32", "NAT64/DNS64 Discovery", false, true],
  ["192.0.0.171/32", "NAT64/DNS64 Discovery", false, true],
  ["192.0.2.0/24", "Documentation (TEST-NET-1)", false, true],
  ["192.31.196.0/24", "AS112-v4", true, false],
  ["192.52.193.0/24", "AMT", true, false],
  ["192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", "N/A", true],
  ["192.88.99.2/32", "6a44-relay anycast address", false, true],
  ["192.168.0.0/16", "Private-Use", false, true],
  ["192.175.48.0/24", "Direct Delegation AS112 Service", true, false],
  ["198.18.0.0/15", "Benchmarking", false, true],
  ["198.51.100.0/24", "Documentation (TEST-NET-2)", false, true],
  ["203.0.113.0/24", "Documentation (TEST-NET-3)", false, true],
  ["240.0.0.0/4", "Reserved", false, true],
  ["255.255.255.255/32", "Limited Broadcast", false, true],
];

const IPV6_REGISTRY: Row[] = [
  ["::1/128", "Loopback Address", false, true],
  ["::/128", "Unspecified Address", false, true],
  ["::ffff:0:0/96", "IPv4-mapped Address", false, true],
  // Stricter than the registry: a NAT64 translator near this host reaches the IPv4 address inside, private or not.
  ["64:ff9b::/96", "IPv4-IPv6 Translat.", true, true],
  ["64:ff9b:1::/48", "IPv4-IPv6 Translat.", false, true],
  ["100::/64", "Discard-Only Address Block", false, true],
  ["100:0:0:1::/64", "Dummy IPv6 Prefix", false, true],
  ["2001::/23", "IETF Protocol Assignments", false, true],
  ["2001::/32", "TEREDO", "N/A", true],
  ["2001:1::1/128", "Port Control Protocol Anycast", true, false],
  ["2001:1::2/128", "Traversal Using Relays around NAT Anycast", true, false],
  ["2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", true, false],
  ["2001:2::/48", "Benchmarking", false, true],
  ["2001:3::/32", "AMT", true, false],
  ["2001:4:112::/48", "AS112-v6", true, false],
  ["2001:10::/28", "Deprecated (previously ORCHID)", "N/A", true],
  ["2001:20::/28", "ORCHIDv2", true, false],
  ["2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", true, false],
  ["2001:db8::/32", "Documentation", false, true],
  ["2002::/16", "6to4", "N/A", true],
  ["2620:4f:8000::/48", "Direct Delegation AS112 Service", true, false],
  ["3fff::/20", "Documentation", false, true],
  ["5f00::/16", "Segment Routing (SRv6) SIDs", false, true],
  ["fc00::/7", "Unique-Local", false, true],
  ["fe80::/10", "Link-Local Unicast", false, true],
];

/** The first and the last address of a block, from its bits (independent of the code under test). */
const ends = (cidr: string): [string, string] => {
  const [address = "", bits = ""] = cidr.split("/");
  const prefix = Number(bits);
  if (!address.includes(":")) {
    const value = address.split(".").reduce((n, octet) => n * 256n + BigInt(octet), 0n);
    const host = (1n << BigInt(32 - prefix)) - 1n;
    const show = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join(".");
    return [show(value & ~host), show(value | host)];
  }
  const [head = "", tail = ""] = address.split("::");
  const groups = (text: string) => (text === "" ? [] : text.split(":"));
  const all = [...groups(head), ...Array(8 - groups(head).length - groups(tail).length).fill("0"), ...groups(tail)];
  const value = all.reduce((n, g) => n * 65536n + BigInt(`0x${g}`), 0n);
  const host = (1n << BigInt(128 - prefix)) - 1n;
  const show = (n: bigint) => Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(":");
  return [show(value & ~host), show(value | host)];
};

describe("every block of the IANA special-purpose registries", () => {
  const rows = [...IPV4_REGISTRY, ...IPV6_REGISTRY].flatMap(([block, name, reachable, refused]) =>
    ends(block).map((address) => [`${block} ${name} (globally reachable: ${reachable})`, address, refused] as const),
  );
  test.each(rows)("%s: %s refused %s", (_block, address, refused) => {
    expect(isPrivateAddress(address)).toBe(refused);
  });

  test("the tables are the registries' full lists (26 IPv4 and 25 IPv6 blocks)", () => {
    expect(IPV4_REGISTRY).toHaveLength(26);
    expect(IPV6_REGISTRY).toHaveLength(25);
  });
});

describe("IPv6 forms that carry an IPv4 address are refused, whatever the address inside", () => {
  const v4 = (address: string) => address.split(".").map((octet) => Number(octet).toString(16).padStart(2, "0"));
  const forms = (address: string): [string, string][] => {
    const [a, b, c, d] = v4(address);
    return [
      ["IPv4-mapped", `::ffff:${address}`],
      ["IPv4-mapped, hex", `::ffff:${a}${b}:${c}${d}`],
      ["NAT64", `64:ff9b::${address}`],
      ["NAT64 local-use", `64:ff9b:1::${a}${b}:${c}${d}`],
      ["6to4", `2002:${a}${b}:${c}${d}::1`],
      ["IPv4-compatible", `::${address}`],
      ["Teredo", `2001:0:${a}${b}:${c}${d}::1`],
    ];
  };
  const inside = [...IPV4_REGISTRY.filter(([, , , refused]) => refused).map(([block]) => ends(block)[0]), "8.8.8.8"];
  test.each(inside.flatMap((address) => forms(address).map(([kind, v6]) => [kind, address, v6] as const)))(
    "%s of %s (%s)",
    (_kind, _address, v6) => expect(isPrivateAddress(v6)).toBe(true),
  );
});

describe("outside the registries", () => {
  test.each([
    ["IPv4 multicast", "224.0.0.1"],
    ["IPv4 multicast, last", "239.255.255.255"],
    ["IPv6 multicast", "ff02::1"],
    ["IPv6 global multicast", "ff0e::1"],
    ["IPv6 site-local (deprecated)", "fec0::1"],
    ["IPv6 site-local, last", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"],
    ["IPv6 outside 2000::/3", "4000::1"],
    ["IPv6 link-local with a zone", "fe80::1%1"],
    ["not an address", "hooks.example.com"],
  ])("%s %s is refused", (_label, address) => expect(isPrivateAddress(address)).toBe(true));

  test.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "2001:4860:4860::8888", "[2a00:1450::1]"])(
    "%s is public",
    (address) => expect(isPrivateAddress(address)).toBe(false),
  );

  test("URL host literals go through the same table; names other than localhost are judged when resolved", () => {
    for (const host of ["[64:ff9b::7f00:1]", "[2002:7f00:1::1]", "[fec0::1]", "[::ffff:808:808]", "192.0.2.2"]) {
      expect(isPrivateHost(host), host).toBe(true);
    }
    expect(isPrivateHost("hooks.example.com")).toBe(false);
    expect(isPrivateHost("[2606:4700::1111]")).toBe(false);
  });
});

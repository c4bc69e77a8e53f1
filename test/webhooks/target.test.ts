import { describe, expect, test } from "bun:test";
import {
  isPublicAddress,
  parseWebhookUrl,
  type Resolver,
  resolveWebhookTarget,
  WebhookLookupTimeout,
  WebhookTargetError,
} from "../../src/webhooks/target.ts";

const strict = { allowHttp: false, allowPrivate: false };
const names =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const addresses = table[host];
    if (!addresses) throw new Error(`ENOTFOUND ${host}`);
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };

describe("which addresses are public", () => {
  test.each([
    "127.0.0.1",
    "127.255.0.1",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.1.1",
    "0.0.0.0",
    "224.0.0.1",
    "255.255.255.255",
    "::1",
    "::",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "fe80::1",
    "fd00:ec2::254",
    "fc00::1",
    "ff02::1",
    "64:ff9b::a00:1",
    "2001:db8::1",
    "2002:7f00:1::1",
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    "64:ff9b:1::a00:1",
    "fec0::1",
    // IPv4-translated (SIIT): whatever IPv4 address it carries, no webhook endpoint lives there.
    "::ffff:0:127.0.0.1",
    "::ffff:0:8.8.8.8",
    "0:0:0:0:ffff:0:a00:1",
    // Cloud platform addresses, public ones included (Azure's wireserver), in every form.
    "168.63.129.16",
    "::ffff:168.63.129.16",
    "64:ff9b::a83f:8110",
  ])("%s is not", (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  test.each([
    "8.8.8.8",
    "93.184.216.34",
    "172.32.0.1",
    "2a00:1450:4001:80b::200e",
    "::ffff:8.8.8.8",
  ])("%s is", (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe("cloud platform addresses are refused even where private addresses are allowed", () => {
  const lenient = { allowHttp: true, allowPrivate: true };
  test.each([
    ["Azure's wireserver", "168.63.129.16"],
    ["the instance metadata service (AWS, GCP, Azure, OCI, DigitalOcean…)", "169.254.169.254"],
    ["AWS's metadata service over IPv6", "fd00:ec2::254"],
    ["AWS's DNS resolver over IPv6", "fd00:ec2::253"],
    ["the ECS task metadata endpoint", "169.254.170.2"],
    ["the EKS pod identity agent", "169.254.170.23"],
    ["GCP's metadata server over IPv6", "fd20:ce::254"],
    ["Alibaba Cloud's metadata service", "100.100.100.200"],
    ["Oracle Cloud's metadata service", "192.0.0.192"],
    ["Tencent Cloud's metadata service", "169.254.0.23"],
    ["an IPv4-mapped form of one", "::ffff:169.254.169.254"],
  ])("%s", async (_, address) => {
    const url = new URL(`http://${address.includes(":") ? `[${address}]` : address}/h`);
    const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
    await expect(resolveWebhookTarget(url, lenient, { timeoutMs: 1000 })).rejects.toThrow(
      new WebhookTargetError(`its host ${host} is a cloud platform address`),
    );
  });

  test("a name resolving to one", async () => {
    const resolver = names({ "wire.example.com": ["93.184.216.34", "168.63.129.16"] });
    await expect(
      resolveWebhookTarget(new URL("https://wire.example.com/h"), lenient, {
        timeoutMs: 1000,
        resolve: resolver,
      }),
    ).rejects.toThrow(
      new WebhookTargetError("its host wire.example.com is at 168.63.129.16, a cloud platform address"),
    );
  });
});

describe("webhook URLs", () => {
  test.each([
    ["http unless allowed", "http://example.com/h", "must be an https URL"],
    ["another scheme", "ftp://example.com/h", "must be an https URL"],
    ["not a URL", "example.com/h", "is not an absolute URL"],
    ["credentials in it", "https://user:pw@example.com/h", "must not carry credentials"],
  ])("refuses %s", (_, url, message) => {
    expect(() => parseWebhookUrl(url, strict)).toThrow(new WebhookTargetError(message));
  });

  test("http when allowed", () => {
    expect(parseWebhookUrl("http://example.com/h", { allowHttp: true, allowPrivate: false }).href).toBe(
      "http://example.com/h",
    );
  });

  const resolver = names({
    "hooks.example.com": ["93.184.216.34"],
    "sneaky.example.com": ["93.184.216.34", "10.0.0.7"],
    localhost: ["127.0.0.1", "::1"],
    "metadata.example.com": ["169.254.169.254"],
  });

  test.each([
    ["loopback", "https://127.0.0.1/h", "its host 127.0.0.1 is not a public address"],
    ["IPv6 loopback", "https://[::1]/h", "its host ::1 is not a public address"],
    ["a private network", "https://10.1.2.3/h", "its host 10.1.2.3 is not a public address"],
    [
      "the cloud metadata address",
      "https://169.254.169.254/latest/meta-data",
      "its host 169.254.169.254 is a cloud platform address",
    ],
    [
      "a name resolving to loopback",
      "https://localhost:8443/h",
      "its host localhost is at 127.0.0.1, not a public address",
    ],
    [
      "a name resolving to metadata",
      "https://metadata.example.com/h",
      "its host metadata.example.com is at 169.254.169.254, a cloud platform address",
    ],
    [
      "a name with one private address among public ones",
      "https://sneaky.example.com/h",
      "its host sneaky.example.com is at 10.0.0.7, not a public address",
    ],
    [
      "a name that does not resolve",
      "https://nowhere.example.com/h",
      "its host nowhere.example.com does not resolve",
    ],
  ])("refuses %s", async (_, url, message) => {
    await expect(
      resolveWebhookTarget(new URL(url), strict, { timeoutMs: 1000, resolve: resolver }),
    ).rejects.toThrow(new WebhookTargetError(message));
  });

  test("a public name resolves to the address to connect to", async () => {
    expect(
      await resolveWebhookTarget(new URL("https://hooks.example.com/h"), strict, {
        timeoutMs: 1000,
        resolve: resolver,
      }),
    ).toEqual({
      address: "93.184.216.34",
      family: 4,
    });
  });

  test("a lookup not answered in time is no refusal: the host may resolve later", async () => {
    const failure = await resolveWebhookTarget(new URL("https://hooks.example.com/h"), strict, {
      timeoutMs: 100,
      resolve: () => new Promise(() => {}),
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WebhookLookupTimeout);
    expect((failure as Error).message).toBe("its host hooks.example.com did not resolve within 100 ms");
  });

  test("private addresses when allowed (tests, private networks)", async () => {
    const lenient = { allowHttp: true, allowPrivate: true };
    expect(
      await resolveWebhookTarget(new URL("http://localhost:8080/h"), lenient, {
        timeoutMs: 1000,
        resolve: resolver,
      }),
    ).toEqual({
      address: "127.0.0.1",
      family: 4,
    });
  });
});

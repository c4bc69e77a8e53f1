import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";
import { raceDeadline } from "../kernel/deadline.ts";
import { ApiError } from "../kernel/errors.ts";

/** What a webhook URL may point at. Both are off in production; tests turn them on. */
export type WebhookPolicy = {
  /** Plain `http://` URLs (WEBHOOK_ALLOW_HTTP). */
  allowHttp: boolean;
  /** Loopback, private, link-local and other non-public addresses (WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate: boolean;
};

export class WebhookTargetError extends Error {
  override name = "WebhookTargetError";
}

/** The host's lookup was not answered in time: no verdict on the URL, whose host may resolve later. */
export class WebhookLookupTimeout extends Error {
  override name = "WebhookLookupTimeout";
}

/** An address a host name resolved to, as `dns.lookup` gives it. */
export type ResolvedAddress = { address: string; family: 4 | 6 };

export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

/** How a webhook URL's host is looked up. */
export type WebhookLookup = {
  /** The most the lookup may take (WEBHOOK_CONNECT_TIMEOUT_MS). */
  timeoutMs: number;
  /** The system's resolver by default. */
  resolve?: Resolver;
};

const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map(({ address, family }) => ({
    address,
    family: family === 6 ? 6 : 4,
  }));

const MAX_URL_LENGTH = 2048;

/** Checks the form of a webhook URL, without resolving it; throws WebhookTargetError. */
export function parseWebhookUrl(raw: string, policy: WebhookPolicy): URL {
  if (raw.length > MAX_URL_LENGTH)
    throw new WebhookTargetError(`must be at most ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookTargetError("is not an absolute URL");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && policy.allowHttp)) {
    throw new WebhookTargetError(policy.allowHttp ? "must be an http or https URL" : "must be an https URL");
  }
  if (url.username || url.password) throw new WebhookTargetError("must not carry credentials");
  if (url.hostname === "") throw new WebhookTargetError("has no host");
  return url;
}

/**
 * The address to deliver to: the host resolved once, every address it resolves to checked
 * (a name with one public and one private address is refused), and the first returned — the
 * caller connects to exactly that, so a second lookup cannot point somewhere else (DNS
 * rebinding). A cloud platform's own address is refused whatever the policy. Throws
 * WebhookTargetError naming what is refused, or WebhookLookupTimeout when the lookup takes
 * longer than `timeoutMs`; the lookup is then left to end unheard (a resolver cannot be told
 * to stop).
 */
export async function resolveWebhookTarget(
  url: URL,
  policy: WebhookPolicy,
  { timeoutMs, resolve = systemResolver }: WebhookLookup,
): Promise<ResolvedAddress> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  let addresses: ResolvedAddress[];
  try {
    // A resolver that never answers would otherwise hold whoever waits: a delivery slot, a request.
    addresses = isIP(host)
      ? [{ address: host, family: isIP(host) === 6 ? 6 : 4 }]
      : await raceDeadline(resolve(host), timeoutMs, () => {
          throw new WebhookLookupTimeout(`its host ${host} did not resolve within ${timeoutMs} ms`);
        });
  } catch (error) {
    if (error instanceof WebhookLookupTimeout) throw error;
    throw new WebhookTargetError(`its host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw new WebhookTargetError(`its host ${host} does not resolve`);
  const at = (address: string) => (address === host ? "" : `at ${address}, `);
  const platform = addresses.find(({ address }) => classify(address) === "platform");
  if (platform) {
    throw new WebhookTargetError(`its host ${host} is ${at(platform.address)}a cloud platform address`);
  }
  if (!policy.allowPrivate) {
    const refused = addresses.find(({ address }) => classify(address) !== "public");
    if (refused)
      throw new WebhookTargetError(`its host ${host} is ${at(refused.address)}not a public address`);
  }
  return addresses[0] as ResolvedAddress;
}

/**
 * A `webhook_url` a caller sends, checked as it will be at delivery (form, then every address
 * its host resolves to): its normalized form, or 400 `invalid_request` naming what is refused,
 * or 503 `service_unavailable` when its host's lookup is not answered in time — a slow resolver
 * is no fault of the URL, and may answer the next time.
 */
export async function acceptWebhookUrl(
  raw: string,
  policy: WebhookPolicy,
  lookup: WebhookLookup,
): Promise<string> {
  try {
    const url = parseWebhookUrl(raw, policy);
    await resolveWebhookTarget(url, policy, lookup);
    return url.href;
  } catch (error) {
    if (error instanceof WebhookTargetError)
      throw new ApiError("invalid_request", `\`webhook_url\` ${error.message}`);
    if (error instanceof WebhookLookupTimeout)
      throw new ApiError("service_unavailable", `\`webhook_url\` ${error.message}; try again shortly`, {
        retryAfter: 5,
      });
    throw error;
  }
}

type Range = [bigint, bigint];

function ipv4ToBigInt(address: string): bigint {
  return address.split(".").reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);
}

function ipv6ToBigInt(address: string): bigint {
  let text = address.toLowerCase().replace(/%.*$/, "");
  // An IPv4 tail (::ffff:127.0.0.1) becomes two groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (tail) {
    const v4 = ipv4ToBigInt(tail);
    text = `${text.slice(0, -tail.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = "", rest] = text.split("::");
  const left = head === "" ? [] : head.split(":");
  const right = rest === undefined || rest === "" ? [] : rest.split(":");
  const groups =
    rest === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return groups.reduce((value, group) => (value << 16n) | BigInt(Number.parseInt(group || "0", 16)), 0n);
}

const cidr = (base: bigint, prefix: number, bits: number): Range => {
  const size = 1n << BigInt(bits - prefix);
  return [base, base + size - 1n];
};
const v4 = (text: string): Range => {
  const [base = "", prefix = "32"] = text.split("/");
  return cidr(ipv4ToBigInt(base), Number(prefix), 32);
};
const v6 = (text: string): Range => {
  const [base = "", prefix = "128"] = text.split("/");
  return cidr(ipv6ToBigInt(base), Number(prefix), 128);
};

/** IPv4 space that is not the public internet (RFC 6890 and neighbours), metadata services included. */
const NON_PUBLIC_V4 = [
  "0.0.0.0/8",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "192.88.99.0/24",
  "192.168.0.0/16",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "224.0.0.0/4",
  "240.0.0.0/4",
].map(v4);

// Also the tunnels and translations that route to IPv4 space behind them (6to4, Teredo, local
// NAT64) and the deprecated site-local range: no webhook endpoint lives there.
const NON_PUBLIC_V6 = [
  "::/128",
  "::1/128",
  "64:ff9b:1::/48",
  "100::/64",
  "2001::/32",
  "2001:db8::/32",
  "2002::/16",
  "fc00::/7",
  "fe80::/10",
  "fec0::/10",
  "ff00::/8",
  // IPv4-translated (SIIT, RFC 2765): a translator would carry it to the IPv4 address inside.
  "::ffff:0:0:0/96",
].map(v6);

/**
 * The addresses cloud platforms serve their own services on inside every virtual machine:
 * instance metadata (credentials), DNS, time, the agents of containers. Most lie in
 * link-local or private space; Azure's wireserver is a public address. They are refused even
 * where private addresses are allowed (WEBHOOK_ALLOW_PRIVATE), which is for the operator's own
 * endpoints, never the platform's.
 */
const PLATFORM = new Set(
  [
    "169.254.169.254", // instance metadata: AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack, Hetzner
    "169.254.169.253", // AWS DNS resolver
    "169.254.169.123", // AWS time sync
    "169.254.170.2", // AWS ECS task metadata and credentials
    "169.254.170.23", // AWS EKS pod identity agent
    "168.63.129.16", // Azure wireserver (public address space)
    "100.100.100.200", // Alibaba Cloud metadata
    "192.0.0.192", // Oracle Cloud metadata
    "169.254.0.23", // Tencent Cloud metadata
  ]
    .map(ipv4ToBigInt)
    .map((value) => `4:${value}`)
    .concat(
      [
        "fd00:ec2::254", // AWS instance metadata over IPv6
        "fd00:ec2::253", // AWS DNS resolver over IPv6
        "fd00:ec2::123", // AWS time sync over IPv6
        "fd00:ec2::23", // AWS EKS pod identity agent over IPv6
        "fd20:ce::254", // GCP metadata server over IPv6
      ].map((address) => `6:${ipv6ToBigInt(address)}`),
    ),
);

/** IPv6 forms that carry an IPv4 address, which is what decides. */
const EMBEDS_V4 = ["::ffff:0:0/96", "64:ff9b::/96", "::/96"].map(v6);

/** Whether an address is on the public internet: not loopback, private, link-local, metadata, multicast or reserved. */
export function isPublicAddress(address: string): boolean {
  return classify(address) === "public";
}

/**
 * Where an address leads: the public internet, a cloud platform's own service, or anything else
 * that is not public. An IPv6 form carrying an IPv4 address is judged by that address.
 */
function classify(address: string): "public" | "private" | "platform" {
  const family = isIP(address);
  if (family === 4) {
    const value = ipv4ToBigInt(address);
    if (PLATFORM.has(`4:${value}`)) return "platform";
    return NON_PUBLIC_V4.some(([low, high]) => value >= low && value <= high) ? "private" : "public";
  }
  if (family !== 6) return "private";
  const value = ipv6ToBigInt(address);
  if (PLATFORM.has(`6:${value}`)) return "platform";
  if (NON_PUBLIC_V6.some(([low, high]) => value >= low && value <= high)) return "private";
  const embedding = EMBEDS_V4.find(([low, high]) => value >= low && value <= high);
  if (embedding) {
    const inner = value & 0xffffffffn;
    return classify([24n, 16n, 8n, 0n].map((shift) => String((inner >> shift) & 0xffn)).join("."));
  }
  return "public";
}

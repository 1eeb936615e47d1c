/**
 * Which network addresses Baton may connect to on an agent's behalf. Checked on the address a name
 * resolves to (so a public-looking name that resolves inside is caught), for every connection.
 */
import ipaddr from 'ipaddr.js';

export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local' | 'metadata' | 'reserved';

/** Cloud metadata endpoints: refused always, whatever the agent entry allows. */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);

/**
 * The IPv4 address an IPv6 address carries, for the forms that carry one where it is known: mapped
 * (::ffff:a.b.c.d), translated (::ffff:0:a.b.c.d), the deprecated compatible form (::a.b.c.d, which a
 * URL writes as ::7f00:1), NAT64's well-known prefix (64:ff9b::a.b.c.d) and 6to4 (2002:aabb:ccdd::).
 * `null`: a form that carries one somewhere else or obfuscated (NAT64 local-use, Teredo), never allowed.
 */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null | undefined {
  const b = v6.toByteArray();
  const zero = (from: number, to: number): boolean => b.slice(from, to).every((x) => x === 0);
  const v4 = (at: number): ipaddr.IPv4 => new ipaddr.IPv4(b.slice(at, at + 4));
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return v4(12);
  if (zero(0, 8) && b[8] === 0xff && b[9] === 0xff && zero(10, 12)) return v4(12);
  // ::/96 but :: and ::1 (their own ranges).
  if (zero(0, 12) && !(zero(12, 15) && (b[15] === 0 || b[15] === 1))) return v4(12);
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b) return zero(4, 12) ? v4(12) : null;
  if (b[0] === 0x20 && b[1] === 0x02) return v4(2);
  if (v6.range() === 'teredo') return null;
  return undefined;
}

export function classifyAddress(address: string): AddressClass {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'reserved';
  }
  // IPv4 written inside IPv6 is judged as the IPv4 address it is, in every form that carries one.
  if (parsed.kind() === 'ipv6') {
    const embedded = embeddedIPv4(parsed as ipaddr.IPv6);
    if (embedded === null) return 'reserved';
    if (embedded) parsed = embedded;
  }
  if (METADATA.has(parsed.toNormalizedString()) || METADATA.has(parsed.toString())) return 'metadata';
  const range = parsed.range();
  switch (range) {
    case 'unicast':
      return 'public';
    case 'loopback':
      return 'loopback';
    case 'private':
    case 'uniqueLocal':
    case 'carrierGradeNat':
      return 'private';
    case 'linkLocal':
      return 'link-local';
    default:
      return 'reserved';
  }
}

/**
 * Why a connection to `address` is refused, or undefined when it may go ahead. `allowPrivateNetwork`
 * opens private and loopback ranges; link-local, metadata and reserved addresses stay refused.
 * `owner` names where the setting lives, for the refusal (default: the agent entry).
 */
export function refusalFor(address: string, allowPrivateNetwork: boolean, owner = 'the agent entry'): string | undefined {
  const cls = classifyAddress(address);
  if (cls === 'public') return undefined;
  if ((cls === 'private' || cls === 'loopback') && allowPrivateNetwork) return undefined;
  if (cls === 'private' || cls === 'loopback') return `${address} is a ${cls} address and ${owner} does not set allowPrivateNetwork`;
  return `${address} is a ${cls} address, never allowed`;
}

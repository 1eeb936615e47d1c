/**
 * Which network addresses Baton may connect to on an agent's behalf. Checked on the address a name
 * resolves to (so a public-looking name that resolves inside is caught), for every connection.
 */
import ipaddr from 'ipaddr.js';

export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local' | 'metadata' | 'reserved';

/** Cloud metadata endpoints: refused always, whatever the agent entry allows. */
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254']);

export function classifyAddress(address: string): AddressClass {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'reserved';
  }
  // IPv4 written inside IPv6 (::ffff:10.0.0.1, ::10.0.0.1) is judged as the IPv4 address it is.
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
    else if (v6.range() === 'rfc6052' || v6.range() === '6to4' || v6.range() === 'teredo') return 'reserved';
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

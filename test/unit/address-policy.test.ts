import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { classifyAddress, refusalFor } from '../../src/a2a/address-policy';

describe('address policy', () => {
  const cases: [string, ReturnType<typeof classifyAddress>][] = [
    ['8.8.8.8', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['224.0.0.1', 'reserved'],
    // IPv4 carried in IPv6, judged as the IPv4 address: NAT64, the deprecated compatible form (as a
    // URL writes [::127.0.0.1]), translated, 6to4; Teredo and NAT64's local-use prefix never.
    ['64:ff9b::a00:1', 'private'],
    ['64:ff9b::a9fe:a9fe', 'metadata'],
    ['64:ff9b::808:808', 'public'],
    ['::7f00:1', 'loopback'],
    ['::a00:1', 'private'],
    ['::2', 'reserved'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'metadata'],
    ['2002:808:808::', 'public'],
    ['64:ff9b:1::a00:1', 'reserved'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['not-an-ip', 'reserved'],
  ];
  for (const [address, expected] of cases) {
    it(`${address} is ${expected}`, () => assert.equal(classifyAddress(address), expected));
  }

  it('opens only private and loopback ranges with allowPrivateNetwork', () => {
    assert.equal(refusalFor('8.8.8.8', false), undefined);
    assert.match(refusalFor('10.0.0.1', false) ?? '', /private address and the agent entry does not set allowPrivateNetwork/);
    assert.match(refusalFor('127.0.0.1', false, 'serve.push') ?? '', /loopback address and serve\.push does not set allowPrivateNetwork/);
    assert.equal(refusalFor('10.0.0.1', true), undefined);
    assert.equal(refusalFor('127.0.0.1', true), undefined);
    assert.match(refusalFor('169.254.169.254', true) ?? '', /metadata address, never allowed/);
    assert.match(refusalFor('fe80::1', true) ?? '', /link-local address, never allowed/);
  });
});

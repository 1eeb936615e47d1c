/**
 * Certificates for a test cluster's mTLS, made with `openssl` (a Debian package): a CA, the
 * frontend's certificate for localhost and 127.0.0.1, a client certificate, and a key that belongs
 * to nothing (for the "key does not match" case).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ClusterCertificates {
  dir: string;
  ca: string;
  caKey: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** A private key no certificate here was made for. */
  strayKey: string;
}

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err) {
    const said = (err as { stderr?: Buffer }).stderr?.toString().trim() ?? (err as Error).message;
    throw new Error(`openssl ${args[0]} failed: ${said} (is the openssl package installed? npm run setup -- --cluster installs it)`);
  }
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Makes the certificates in `dir` (valid for `days`). */
export function makeCertificates(dir: string, days = 30): ClusterCertificates {
  mkdirSync(dir, { recursive: true });
  const at = (f: string) => join(dir, f);
  openssl(['req', '-x509', ...EC, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', String(days), '-subj', '/CN=Baton test CA'], dir);
  const issue = (name: string, subject: string, ext: string) => {
    openssl(['req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject], dir);
    writeFileSync(at(`${name}.ext`), `${ext}\n`);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.pem`,
        '-days',
        String(days),
        '-extfile',
        `${name}.ext`,
      ],
      dir,
    );
  };
  issue('server', '/CN=localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth');
  issue('client', '/CN=baton-worker', 'extendedKeyUsage=clientAuth');
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-out', 'stray.key'], dir);
  return {
    dir,
    ca: at('ca.pem'),
    caKey: at('ca.key'),
    serverCert: at('server.pem'),
    serverKey: at('server.key'),
    clientCert: at('client.pem'),
    clientKey: at('client.key'),
    strayKey: at('stray.key'),
  };
}

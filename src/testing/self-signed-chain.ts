import { X509Certificate } from 'node:crypto';

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g;

/**
 * The trust bundle in a kube-apiserver's generated `--cert-dir` certificate, once the file is whole;
 * undefined while it is still empty or half-written.
 *
 * kube-apiserver writes the file with a plain os.WriteFile (k8s.io/apiserver, pkg/server/options/serving.go,
 * MaybeDefaultWithSelfSignedCerts → certutil.WriteCert): the serving certificate, then the self-signed CA
 * that issued it (client-go, util/cert/cert.go, GenerateSelfSignedCertKeyWithFixtures). A reader that sees
 * the file as soon as it exists may get nothing or only the leaf; trusting that makes TLS fail with
 * "self-signed certificate in certificate chain". So the file counts as whole when every block parses
 * and the last one is a CA that signed itself.
 */
export function selfSignedChain(pem: string): Buffer | undefined {
  const blocks = pem.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) return undefined;
  let certificates: X509Certificate[];
  try {
    certificates = blocks.map((block) => new X509Certificate(block));
  } catch {
    return undefined;
  }
  const root = certificates.at(-1)!;
  if (!root.ca || !root.checkIssued(root) || !root.verify(root.publicKey)) return undefined;
  return Buffer.from(pem);
}

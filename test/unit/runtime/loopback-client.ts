import { KubeClient } from '../../../src/kube/client/index.ts';

/** A client of a test's own loopback HTTP server, which plays the apiserver's part for one scenario. */
export function loopbackClient(server: string): KubeClient {
  return new KubeClient(
    { contextName: 'fake', clusterName: 'fake', userName: 'fake', server, insecureSkipTLSVerify: false },
    { name: 'fake' },
  );
}

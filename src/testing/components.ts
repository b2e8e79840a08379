import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderKubeconfig } from '../kube/kubeconfig/index.ts';
import type { ApiServer } from './apiserver.ts';
import { binary, binDir } from './binaries.ts';
import { ManagedProcess } from './process.ts';
import { SupervisedProcess } from './supervised-process.ts';

/**
 * The controllers a member needs so that `kubefedctl join` works: the token controller fills the
 * service-account token Secret that join creates, and namespace/garbage collection make deletes finish.
 */
export const TOKEN_CONTROLLERS = [
  'serviceaccount-token-controller',
  'serviceaccount-controller',
  'namespace-controller',
  'garbage-collector-controller',
  'root-ca-certificate-publisher-controller',
];

export function adminKubeconfigFile(api: ApiServer): string {
  const file = join(api.dir, 'admin.kubeconfig');
  writeFileSync(
    file,
    renderKubeconfig(
      [{ name: api.name, server: api.server, caData: api.caData, token: api.adminToken }],
      api.name,
    ),
    { mode: 0o600 },
  );
  return file;
}

/** Flags kube-controller-manager and kube-scheduler share: admin kubeconfig, loopback only, no leader election. */
function componentArgs(kubeconfig: string): string[] {
  return [
    `--kubeconfig=${kubeconfig}`,
    `--authentication-kubeconfig=${kubeconfig}`,
    `--authorization-kubeconfig=${kubeconfig}`,
    '--bind-address=127.0.0.1',
    '--secure-port=0',
    '--leader-elect=false',
    '--v=0',
  ];
}

/** kube-controller-manager, started again when it exits on its own (as the kubelet would). */
export function startControllerManager(
  api: ApiServer,
  controllers: readonly string[] | 'all',
): SupervisedProcess {
  const kubeconfig = adminKubeconfigFile(api);
  const name = `kube-controller-manager-${api.name}`;
  return new SupervisedProcess(name, () =>
    ManagedProcess.start(
      name,
      binary('kube-controller-manager'),
      [
        ...componentArgs(kubeconfig),
        `--service-account-private-key-file=${api.saKeyFile}`,
        `--root-ca-file=${api.certFile}`,
        `--controllers=${controllers === 'all' ? '*' : controllers.join(',')}`,
        '--use-service-account-credentials=false',
        '--concurrent-gc-syncs=5',
      ],
      { logFile: join(api.dir, 'kube-controller-manager.log') },
    ),
  );
}

/** True when kube-controller-manager runs the service-account token controller with this list. */
export function runsTokenController(controllers: readonly string[] | 'all'): boolean {
  return controllers === 'all' || controllers.includes('serviceaccount-token-controller');
}

export function startScheduler(api: ApiServer): ManagedProcess {
  const kubeconfig = adminKubeconfigFile(api);
  return ManagedProcess.start(
    `kube-scheduler-${api.name}`,
    binary('kube-scheduler'),
    componentArgs(kubeconfig),
    { logFile: join(api.dir, 'kube-scheduler.log') },
  );
}

/**
 * kwok's controller makes fake nodes Ready and fake pods Running, so Deployments become available
 * without a container runtime. It manages only nodes annotated kwok.x-k8s.io/node=fake.
 */
export function startKwok(api: ApiServer): ManagedProcess {
  const kubeconfig = adminKubeconfigFile(api);
  return ManagedProcess.start(
    `kwok-${api.name}`,
    binary('kwok'),
    [
      `--kubeconfig=${kubeconfig}`,
      // The stages (node-initialize, heartbeat, pod-ready/complete/delete) that kwokctl would pass.
      `--config=${join(binDir(), 'kwok-stages.yaml')}`,
      '--manage-all-nodes=false',
      '--manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake',
      '--node-ip=127.0.0.1',
      '--node-port=0',
      '--server-address=127.0.0.1:0',
      '--v=ERROR',
    ],
    { logFile: join(api.dir, 'kwok.log') },
  );
}

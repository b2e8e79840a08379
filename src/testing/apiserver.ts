import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KubeClient } from '../kube/client/index.ts';
import type { RestConfig } from '../kube/kubeconfig/index.ts';
import { binary } from './binaries.ts';
import { freePort, waitFor } from './ports.ts';
import { ManagedProcess } from './process.ts';
import { selfSignedChain } from './self-signed-chain.ts';

export interface ApiServerOptions {
  name: string;
  dir: string;
  etcdUrl: string;
  port?: number;
  /**
   * `--service-cluster-ip-range`; 10.0.0.0/24 by default. Dual-stack as `<v4 cidr>,<v6 cidr>` (the IPv6
   * range at most 20 host bits, e.g. /108, or the apiserver refuses to start).
   */
  serviceClusterIpRange?: string;
}

/**
 * A real kube-apiserver on 127.0.0.1. It serves with the self-signed certificate it generates in its
 * cert dir (no openssl needed), authenticates an admin by static token (system:masters), and signs
 * service-account tokens with a key generated here, so a controller-manager can mint tokens for `join`.
 */
export class ApiServer {
  readonly name: string;
  readonly dir: string;
  readonly port: number;
  readonly server: string;
  readonly adminToken: string;
  readonly saKeyFile: string;
  readonly certFile: string;
  readonly #etcdUrl: string;
  readonly #serviceClusterIpRange: string;
  #proc: ManagedProcess | undefined;
  #caData: Buffer | undefined;

  private constructor(opts: ApiServerOptions & { port: number }) {
    this.name = opts.name;
    this.dir = opts.dir;
    this.port = opts.port;
    this.server = `https://127.0.0.1:${opts.port}`;
    this.#etcdUrl = opts.etcdUrl;
    this.#serviceClusterIpRange = opts.serviceClusterIpRange ?? '10.0.0.0/24';
    mkdirSync(join(opts.dir, 'certs'), { recursive: true });
    this.saKeyFile = join(opts.dir, 'sa.key');
    this.certFile = join(opts.dir, 'certs', 'apiserver.crt');
    const tokenFile = join(opts.dir, 'tokens.csv');
    if (!existsSync(tokenFile)) {
      writeFileSync(tokenFile, `${randomBytes(24).toString('hex')},admin,admin,"system:masters"\n`, {
        mode: 0o600,
      });
    }
    this.adminToken = readFileSync(tokenFile, 'utf8').split(',')[0] ?? '';
    if (!existsSync(this.saKeyFile)) {
      const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      writeFileSync(this.saKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
      writeFileSync(join(opts.dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    }
  }

  static async create(opts: ApiServerOptions): Promise<ApiServer> {
    return new ApiServer({ ...opts, port: opts.port ?? (await freePort()) });
  }

  get running(): boolean {
    return this.#proc?.running ?? false;
  }

  /**
   * Freezes (SIGSTOP) or thaws (SIGCONT) the process: connections stay open but nothing answers, like a
   * hung or partitioned member, which is harder on clients than a refused connection.
   */
  freeze(frozen: boolean): void {
    const pid = this.#proc?.child.pid;
    if (pid !== undefined) process.kill(pid, frozen ? 'SIGSTOP' : 'SIGCONT');
  }

  get caData(): Buffer {
    if (!this.#caData) throw new Error(`${this.name}: apiserver has not generated its certificate yet`);
    return this.#caData;
  }

  get restConfig(): RestConfig {
    return {
      contextName: this.name,
      clusterName: this.name,
      userName: `${this.name}-admin`,
      server: this.server,
      caData: this.caData,
      token: this.adminToken,
      insecureSkipTLSVerify: false,
    };
  }

  client(opts: { timeoutMs?: number } = {}): KubeClient {
    return new KubeClient(this.restConfig, { name: this.name, timeoutMs: opts.timeoutMs ?? 10_000 });
  }

  /** Starts the process (again, after stop: same port, same certificate, same data) and waits until ready. */
  async start(): Promise<void> {
    if (this.running) return;
    const d = this.dir;
    this.#proc = ManagedProcess.start(
      `kube-apiserver-${this.name}`,
      binary('kube-apiserver'),
      [
        `--etcd-servers=${this.#etcdUrl}`,
        `--etcd-prefix=/${this.name}/registry`,
        '--bind-address=127.0.0.1',
        `--secure-port=${this.port}`,
        '--advertise-address=127.0.0.1',
        `--cert-dir=${join(d, 'certs')}`,
        `--token-auth-file=${join(d, 'tokens.csv')}`,
        `--service-account-issuer=${this.server}`,
        `--service-account-key-file=${join(d, 'sa.pub')}`,
        `--service-account-signing-key-file=${this.saKeyFile}`,
        `--service-cluster-ip-range=${this.#serviceClusterIpRange}`,
        '--authorization-mode=Node,RBAC',
        '--disable-admission-plugins=ServiceAccount',
        // The default reconciler would try to publish 127.0.0.1 as an endpoint, which is not allowed.
        '--endpoint-reconciler-type=none',
        '--allow-privileged=true',
        '--enable-priority-and-fairness=false',
        // /debug/pprof for a benchmark's profile of the apiserver's own CPU (docs/benchmarks.md).
        `--profiling=${process.env['KUBEFED_TS_APISERVER_PROFILING'] === 'true'}`,
        '--v=0',
      ],
      // Everything it calls (webhooks, aggregated APIs) is on this machine: a proxy from the environment
      // would receive calls to Service IPs and answer with its own certificate.
      { logFile: join(d, 'kube-apiserver.log'), env: withoutProxy(process.env) },
    );
    const proc = this.#proc;
    await waitFor(
      'the apiserver certificate',
      async () => {
        if (!proc.running) throw new Error(`kube-apiserver ${this.name} exited:\n${proc.tail()}`);
        // The file exists before it is whole; trust it only once it holds the whole chain.
        this.#caData = existsSync(this.certFile)
          ? selfSignedChain(readFileSync(this.certFile, 'utf8'))
          : undefined;
        return this.#caData !== undefined;
      },
      { timeoutMs: 30_000 },
    );
    const client = this.client({ timeoutMs: 3000 });
    try {
      await waitFor(
        `kube-apiserver ${this.name} to be ready`,
        async () => {
          if (!proc.running) throw new Error(`kube-apiserver ${this.name} exited:\n${proc.tail()}`);
          const res = await client.requestRaw('GET', '/readyz');
          return res.statusCode === 200;
        },
        { timeoutMs: 90_000, intervalMs: 250, describe: () => proc.tail(10) },
      );
    } finally {
      await client.close();
    }
  }

  async stop(): Promise<void> {
    await this.#proc?.stop();
  }

  /** Kills without a chance to clean up, like a crashed or partitioned control plane. */
  kill(): void {
    this.#proc?.killNow();
  }
}

const PROXY_VARIABLES = new Set(['http_proxy', 'https_proxy', 'all_proxy', 'no_proxy']);

/** `env` without HTTP(S)_PROXY, ALL_PROXY and NO_PROXY in either case. */
export function withoutProxy(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !PROXY_VARIABLES.has(k.toLowerCase())));
}

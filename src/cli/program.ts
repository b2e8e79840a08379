import { Command, Option } from 'commander';
import { stringify as toYaml } from 'yaml';
import { DEFAULT_KUBEFED_NAMESPACE } from '../config/index.ts';
import { errorMessage } from '../kube/client/index.ts';
import { CommandError } from '../kubefedctl/errors.ts';
import { join } from '../kubefedctl/join.ts';
import { DEFAULT_LOCAL_DIR, localDown, localUp } from '../kubefedctl/local-up.ts';
import { unjoin } from '../kubefedctl/unjoin.ts';

export const VERSION = 'v0.1.0';

const out = (line: string) => process.stdout.write(line.endsWith('\n') ? line : `${line}\n`);
const warn = (line: string) => process.stderr.write(`Warning: ${line}\n`);

/** The flags every cluster-registration command has, named as in KubeFed's kubefedctl. */
interface GlobalFlags {
  kubeconfig?: string;
  hostClusterContext?: string;
  kubefedNamespace: string;
  dryRun: boolean;
}
interface JoinFlags extends GlobalFlags {
  clusterContext?: string;
  hostClusterName?: string;
  secretName?: string;
  errorOnExisting: boolean;
}
interface UnjoinFlags extends GlobalFlags {
  clusterContext?: string;
  hostClusterName?: string;
  force: boolean;
}

function withGlobalFlags(cmd: Command): Command {
  cmd
    .option('--kubeconfig <path>', 'path to the kubeconfig file (default: KUBECONFIG, then ~/.kube/config)')
    .option('--host-cluster-context <context>', 'host cluster context (default: the current context)')
    .option('--kubefed-namespace <ns>', 'namespace of the KubeFed control plane', DEFAULT_KUBEFED_NAMESPACE)
    .option('--dry-run', 'show what would be done without changing anything', false)
    .addOption(new Option('-v, --v <level>', 'log verbosity').default('0'));
  return cmd;
}

export function buildProgram(): Command {
  const program = new Command('kubefedctl')
    .description('kubefedctl controls a kubefed-ts (KubeFed-compatible) federation control plane.')
    .showHelpAfterError()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });

  const joinCmd = new Command('join')
    .description('Register a cluster with the KubeFed control plane')
    .argument('<cluster-name>', 'name of the KubeFedCluster to create')
    .option(
      '--cluster-context <context>',
      'kubeconfig context of the joining cluster (default: CLUSTER_NAME)',
    )
    .option(
      '--host-cluster-name <name>',
      'name of the host cluster inside member object names (default: host context)',
    )
    .option('--secret-name <name>', 'name of the host Secret holding the member token (default: generated)')
    .addOption(
      new Option('--error-on-existing [bool]', 'fail if an object to be created already exists')
        .default(true)
        .argParser((v) => v !== 'false'),
    );
  withGlobalFlags(joinCmd).action(async (clusterName: string, o: JoinFlags) => {
    const res = await join({
      clusterName,
      clusterContext: o.clusterContext,
      hostClusterName: o.hostClusterName,
      secretName: o.secretName,
      errorOnExisting: o.errorOnExisting,
      kubeconfig: o.kubeconfig,
      hostClusterContext: o.hostClusterContext,
      kubefedNamespace: o.kubefedNamespace,
      dryRun: o.dryRun,
      out,
    });
    if (o.dryRun) {
      out(`# dry run: these objects would be written (member "${clusterName}" first, then the host)`);
      for (const { cluster, object } of res.objects) out(`---\n# ${cluster}\n${toYaml(object)}`);
    } else {
      out(`Cluster "${clusterName}" joined.`);
    }
  });

  const unjoinCmd = new Command('unjoin')
    .description('Remove the registration of a cluster from the KubeFed control plane')
    .argument('<cluster-name>', 'name of the KubeFedCluster to remove')
    .option('--cluster-context <context>', 'kubeconfig context of the cluster (default: CLUSTER_NAME)')
    .option(
      '--host-cluster-name <name>',
      'name of the host cluster inside member object names (default: host context)',
    )
    .option('--force', 'remove the host-side registration even if the member cannot be cleaned up', false);
  withGlobalFlags(unjoinCmd).action(async (clusterName: string, o: UnjoinFlags) => {
    const res = await unjoin({
      clusterName,
      clusterContext: o.clusterContext,
      hostClusterName: o.hostClusterName,
      force: o.force,
      kubeconfig: o.kubeconfig,
      hostClusterContext: o.hostClusterContext,
      kubefedNamespace: o.kubefedNamespace,
      dryRun: o.dryRun,
      out,
      warn,
    });
    if (o.dryRun) {
      for (const d of res.deleted)
        out(`would delete ${d.cluster} ${d.kind} ${d.namespace ? `${d.namespace}/` : ''}${d.name}`);
    } else {
      out(`Cluster "${clusterName}" unjoined.`);
    }
  });

  const localUpCmd = new Command('local-up')
    .description(
      'Start a local federation (host + members on this machine), install kubefed-ts and join the members',
    )
    .option('--members <n|names>', 'member count, or comma-separated member names', 'cluster1,cluster2')
    .option('--dir <path>', 'where state, logs and the kubeconfig are written', DEFAULT_LOCAL_DIR)
    .option('--kubefed-namespace <ns>', 'namespace of the KubeFed control plane', DEFAULT_KUBEFED_NAMESPACE)
    .action(async (o: { members: string; dir: string; kubefedNamespace: string }) => {
      const members = /^\d+$/.test(o.members)
        ? Array.from({ length: Number(o.members) }, (_, i) => `cluster${i + 1}`)
        : o.members
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
      if (members.length === 0) throw new CommandError('--members: at least one member is needed');
      if (members.includes('host'))
        throw new CommandError('--members: "host" is the name of the host cluster');
      await localUp({ dir: o.dir, members, namespace: o.kubefedNamespace, out });
    });

  const localDownCmd = new Command('local-down')
    .description('Stop the local federation started by local-up and remove its state')
    .option('--dir <path>', 'the directory given to local-up', DEFAULT_LOCAL_DIR)
    .action(async (o: { dir: string }) => {
      await localDown({ dir: o.dir, out });
    });

  const versionCmd = new Command('version').description('Print the version').action(() => {
    out(`kubefedctl version: ${VERSION} (kubefed-ts, KubeFed v0.10 compatible)`);
  });

  program
    .addCommand(joinCmd)
    .addCommand(unjoinCmd)
    .addCommand(localUpCmd)
    .addCommand(localDownCmd)
    .addCommand(versionCmd);
  return program;
}

/** Runs kubefedctl; every failure becomes one `Error: ...` line on stderr and exit code 1. */
export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  program.exitOverride();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help')
      return 0;
    if (typeof code === 'string' && code.startsWith('commander.')) return 1; // commander already printed it
    process.stderr.write(`Error: ${oneLine(errorMessage(e))}\n`);
    return 1;
  }
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, '; ').trim();
}

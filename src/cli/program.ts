import { Command, Option } from 'commander';
import { stringify as toYaml } from 'yaml';
import { parseDuration } from '../config/duration.ts';
import { DEFAULT_KUBEFED_NAMESPACE } from '../config/index.ts';
import { FEDERATED_GROUP, FEDERATED_VERSION } from '../federation-types/group.ts';
import { errorMessage, type KubeClient } from '../kube/client/index.ts';
import { KubeconfigContext } from '../kubefedctl/context.ts';
import { cordonCluster } from '../kubefedctl/cordon.ts';
import { disableType, validateDisableFlags } from '../kubefedctl/disable.ts';
import { enableType, parseOutputFlag } from '../kubefedctl/enable.ts';
import { CommandError } from '../kubefedctl/errors.ts';
import {
  offlineClusters,
  parseExplainOutput,
  runExplainLive,
  runExplainOffline,
} from '../kubefedctl/explain.ts';
import { federate, validateFederateArgs } from '../kubefedctl/federate.ts';
import { join } from '../kubefedctl/join.ts';
import { DEFAULT_AGENT_LEASE_SECONDS, JOIN_MODES, type JoinMode, joinPull } from '../kubefedctl/join-pull.ts';
import { DEFAULT_LOCAL_DIR, DEFAULT_SAMPLE, localDown, localUp } from '../kubefedctl/local-up.ts';
import { mcsStatus, parseMcsStatusOutput } from '../kubefedctl/mcs-status.ts';
import { migrateFromKubeFed } from '../kubefedctl/migrate-from-kubefed.ts';
import { type OrphaningAction, orphaningDeletion } from '../kubefedctl/orphaning-deletion.ts';
import {
  offlineSource,
  type PlanOutput,
  parsePlanOutput,
  parseReplicaFlag,
  parseRspDocument,
  readInput as readPlanInput,
  runPlan,
} from '../kubefedctl/plan.ts';
import { livePolicyState, liveSource } from '../kubefedctl/plan-live.ts';
import { offlinePolicyState, parsePolicyPlanFiles, runPolicyPlan } from '../kubefedctl/plan-policy.ts';
import { parsePromoteOutput, promote } from '../kubefedctl/promote.ts';
import { parseTaintArgs, parseTaintSpecs, taintCluster } from '../kubefedctl/taint.ts';
import { unjoin } from '../kubefedctl/unjoin.ts';
import { VERSION } from '../version.ts';
import { flagShapes, normalizeArgs } from './argv.ts';
import { scopedMemberGrant, syncRbacCommand, syncScopedMembersAfterTypeChange } from './sync-rbac.ts';

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
  scopedRbac: boolean;
  skipMcsCrds: boolean;
  provider?: string;
  mode: JoinMode;
  apiEndpoint?: string;
  hubApiEndpoint?: string;
  printAgentInstall: boolean;
  agentImage?: string;
  agentExecutionRole?: string;
  agentLeaseDuration: string;
}
interface EnableFlags extends GlobalFlags {
  federatedGroup: string;
  version?: string;
  federatedVersion: string;
  output?: string;
  filename?: string;
}
interface DisableFlags extends GlobalFlags {
  federatedGroup: string;
  version?: string;
  deleteCrd: boolean;
}
interface FederateFlags extends GlobalFlags {
  namespace?: string;
  output?: string;
  enableType: boolean;
  contents: boolean;
  filename?: string;
  skipApiResources: string[];
  federatedGroup: string;
  federatedVersion: string;
}
interface OrphaningFlags extends GlobalFlags {
  namespace?: string;
}
interface PlanFlags extends GlobalFlags {
  live?: boolean;
  filename?: string;
  clusters?: string[];
  current?: string[];
  capacity?: string[];
  key?: string;
  output?: string;
  policy?: string;
  clustersFile?: string;
}
interface ExplainFlags extends GlobalFlags {
  filename: string[];
  namespace?: string;
  clusters?: string[];
  output?: string;
  live: boolean;
}
interface PromoteFlags extends GlobalFlags {
  namespace?: string;
  cluster?: string;
  clusterContext?: string;
  clusterKubeconfig?: string;
  policyName?: string;
  autoCreatePolicy: boolean;
  dependencies: boolean;
  output?: string;
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

/** Runs a command against the host cluster's client (named after its context) and closes it afterwards. */
async function withHost<T>(o: GlobalFlags, fn: (host: KubeClient) => Promise<T>): Promise<T> {
  const ctx = new KubeconfigContext(o.kubeconfig);
  try {
    const hostContext = ctx.hostContextName(o.hostClusterContext);
    return await fn(ctx.client(hostContext));
  } finally {
    await ctx.close();
  }
}

/**
 * Like withHost, also passing the namespace of the host context (else `default`): the `-n` default of
 * federate and orphaning-deletion, as kubectl's.
 */
async function withHostAndNamespace<T>(
  o: GlobalFlags,
  fn: (host: KubeClient, contextNamespace: string) => Promise<T>,
): Promise<T> {
  const ctx = new KubeconfigContext(o.kubeconfig);
  try {
    const hostContext = ctx.hostContextName(o.hostClusterContext);
    const config = ctx.restConfig(hostContext);
    return await fn(ctx.client(hostContext, hostContext, config), config.namespace || 'default');
  } finally {
    await ctx.close();
  }
}

/** pflag's StringSlice: comma-separated, and the flag may be repeated. */
const collectList = (value: string, previous: string[]): string[] => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

/** `name`: how the user called it, `kubefedctl` or, as a kubectl plugin, `kubectl kubefed`. */
export function buildProgram(name = 'kubefedctl'): Command {
  const program = new Command(name)
    .description('kubefedctl controls a kubefed-ts (KubeFed-compatible) federation control plane.')
    .addHelpText(
      'after',
      "\nklog's flags are accepted before or after the command: -v/--v=N, --logtostderr, --log-dir, ... " +
        '(see docs/kubefedctl.md)',
    )
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
    )
    .option(
      '--scoped-rbac',
      "grant the member's service account only the enabled federated types (kept up to date by enable, disable and sync-rbac) instead of KubeFed's full access",
      false,
    )
    .option(
      '--provider <name>',
      "cloud provider of the cluster (KubeFedCluster spec.provider), matched by policies' fieldSelector",
    )
    .option(
      '--skip-mcs-crds',
      'push: do not install the multi-cluster services CRDs (ServiceExport, ServiceImport, ClusterProperty) into the member; existing ones are never replaced unless kubefed-ts installed them (docs/mcs.md)',
      false,
    )
    .addOption(
      new Option(
        '--mode <mode>',
        'push: the control plane applies to the member with a member token stored on the hub (KubeFed); ' +
          'pull: kubefed-agent in the member fetches its ManifestWorks from the hub, which holds no member credential',
      )
        .choices(JOIN_MODES)
        .default('push'),
    )
    .option(
      '--api-endpoint <url>',
      "pull: the member's API endpoint recorded in the KubeFedCluster (default: the server of --cluster-context, else of the context named CLUSTER_NAME)",
    )
    .option(
      '--hub-api-endpoint <url>',
      'pull: the hub URL the agent dials, as seen from the member (default: the server of the host context)',
    )
    .option(
      '--print-agent-install',
      "pull: print the agent's install manifests (YAML, to apply to the member) instead of applying them; the default without --cluster-context",
      false,
    )
    .option('--agent-image <image>', 'pull: the image of the kubefed-agent Deployment')
    .option(
      '--agent-execution-role <clusterrole>',
      "pull: bind this existing member ClusterRole as what the agent may apply (e.g. admin, as OCM) instead of kubefed-agent:execution's workload kinds",
    )
    .option(
      '--agent-lease-duration <duration>',
      "pull: the agent's lease renewal period; the cluster is not ready after 5 times this without a renewal",
      `${DEFAULT_AGENT_LEASE_SECONDS}s`,
    );
  withGlobalFlags(joinCmd).action(async (clusterName: string, o: JoinFlags) => {
    if (o.mode === 'pull') return joinPullAction(clusterName, o);
    const res = await join({
      clusterName,
      clusterContext: o.clusterContext,
      hostClusterName: o.hostClusterName,
      secretName: o.secretName,
      errorOnExisting: o.errorOnExisting,
      scopedRbac: o.scopedRbac,
      skipMcsCrds: o.skipMcsCrds,
      provider: o.provider,
      kubeconfig: o.kubeconfig,
      hostClusterContext: o.hostClusterContext,
      kubefedNamespace: o.kubefedNamespace,
      dryRun: o.dryRun,
      out,
      warn,
    });
    if (o.dryRun) {
      out(`# dry run: these objects would be written (member "${clusterName}" first, then the host)`);
      if (res.mcsCrdsSkipped && !o.skipMcsCrds)
        out(`# no multi-cluster services CRDs for the member: ${res.mcsCrdsSkipped}`);
      for (const step of res.mcsCrds)
        if (step.action === 'keep')
          out(
            `# member CRD ${step.name} left as it is: ${step.reason}${step.warning ? `; ${step.warning}` : ''}`,
          );
      for (const { cluster, object } of res.objects) out(`---\n# ${cluster}\n${toYaml(object)}`);
    } else {
      out(`Cluster "${clusterName}" joined.`);
    }
  });

  async function joinPullAction(clusterName: string, o: JoinFlags): Promise<void> {
    let leaseMs: number;
    try {
      leaseMs = parseDuration(o.agentLeaseDuration);
    } catch (e) {
      throw new CommandError(`--agent-lease-duration: ${errorMessage(e)}`);
    }
    if (leaseMs < 1000 || leaseMs % 1000 !== 0)
      throw new CommandError(
        `--agent-lease-duration: must be whole seconds, at least 1s, not ${o.agentLeaseDuration}`,
      );
    const print = o.printAgentInstall || !o.clusterContext;
    // The install goes to stdout alone (`| kubectl apply -f -`); progress then goes to stderr.
    const progress = print ? (line: string) => process.stderr.write(`${line}\n`) : out;
    const res = await joinPull({
      clusterName,
      clusterContext: o.clusterContext,
      printAgentInstall: print,
      apiEndpoint: o.apiEndpoint,
      hubApiEndpoint: o.hubApiEndpoint,
      agentImage: o.agentImage,
      agentExecutionRole: o.agentExecutionRole,
      leaseDurationSeconds: leaseMs / 1000,
      errorOnExisting: o.errorOnExisting,
      provider: o.provider,
      kubeconfig: o.kubeconfig,
      hostClusterContext: o.hostClusterContext,
      kubefedNamespace: o.kubefedNamespace,
      dryRun: o.dryRun,
      out: progress,
    });
    if (o.dryRun) {
      out(`# dry run: these objects would be written (the host, then the member "${clusterName}")`);
      for (const object of res.hubObjects) out(`---\n# host\n${toYaml(object)}`);
      for (const object of res.agentInstall) out(`---\n# member\n${toYaml(object)}`);
      return;
    }
    if (!res.installed) {
      for (const object of res.agentInstall) out(`---\n${toYaml(object, { lineWidth: 0 })}`);
      progress(
        `Cluster "${clusterName}" joined in Pull mode; apply the manifests above to it to start its agent.`,
      );
    } else {
      out(`Cluster "${clusterName}" joined in Pull mode.`);
    }
  }

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

  const enableCmd = new Command('enable')
    .description('Enables propagation of a Kubernetes API type (generates its Federated<Kind> CRD and FTC)')
    .usage('(NAME | -f FILENAME) [options]')
    .argument(
      '[name]',
      'target type: plural, singular, kind, short name or plural.group (e.g. deployments.apps)',
    )
    .option('--federated-group <group>', 'API group of the generated federated type', FEDERATED_GROUP)
    .option('--version <version>', 'API version of the target type (default: the preferred version)')
    .option('--federated-version <version>', 'API version of the generated federated type', FEDERATED_VERSION)
    .option('-o, --output <format>', "print the resources instead of writing them; valid values: 'yaml'")
    .option('-f, --filename <file>', 'an EnableTypeDirective YAML file; only --output is honoured with it');
  withGlobalFlags(enableCmd).action(async (name: string | undefined, o: EnableFlags) => {
    // Flag errors first, before the kubeconfig is even read (KubeFed's Complete before Run).
    const output = parseOutputFlag(o.output);
    if (!name && !o.filename) throw new CommandError('NAME is required');
    await withHost(o, async (host) => {
      const grant = scopedMemberGrant(o, host, out, warn);
      await enableType({
        host,
        namespace: o.kubefedNamespace,
        name,
        targetVersion: o.version,
        federatedGroup: o.federatedGroup,
        federatedVersion: o.federatedVersion,
        output,
        filename: o.filename,
        dryRun: o.dryRun,
        out,
        warn,
        beforeFtcWrite: grant.beforeFtcWrite,
      });
      grant.report();
    });
  });

  const disableCmd = new Command('disable')
    .description('Disables propagation of a Kubernetes API type, optionally deleting its federated CRD')
    .argument('<name>', 'FTC name (e.g. deployments.apps) or target type name')
    .option('--delete-crd', "also delete the federated type's CRD (refused while instances exist)", false)
    .option(
      '--federated-group <group>',
      'API group of the federated type, to find the CRD when no FTC exists (only with --delete-crd)',
      FEDERATED_GROUP,
    )
    .option(
      '--version <version>',
      'API version of the target type, when no FTC exists (only with --delete-crd)',
    );
  withGlobalFlags(disableCmd).action(async (name: string, o: DisableFlags) => {
    validateDisableFlags({
      deleteCrd: o.deleteCrd,
      targetVersion: o.version,
      federatedGroup: o.federatedGroup,
    });
    await withHost(o, async (host) => {
      await disableType({
        host,
        namespace: o.kubefedNamespace,
        name,
        deleteCrd: o.deleteCrd,
        targetVersion: o.version,
        federatedGroup: o.federatedGroup,
        dryRun: o.dryRun,
        out,
        warn,
      });
      if (!o.dryRun) await syncScopedMembersAfterTypeChange(o, host, out, warn);
    });
  });

  const federateCmd = new Command('federate')
    .description('Creates a federated resource from a Kubernetes resource of the host cluster')
    .usage('TYPE-NAME RESOURCE-NAME [options] | -f FILENAME [options]')
    .argument('[type-name]', 'target type: plural, singular, kind, short name or plural.group')
    .argument('[resource-name]', 'name of the resource to federate')
    .option(
      '-n, --namespace <namespace>',
      'namespace of the resource to federate (default: the host context namespace, else default)',
    )
    .option(
      '-o, --output <format>',
      "print the federated resources instead of creating them; valid values: 'yaml'",
    )
    .option('-t, --enable-type', 'enable federation of the type first if it is not enabled yet', false)
    .option('-c, --contents', 'namespaces only: also federate every resource in the namespace', false)
    .option(
      '-f, --filename <file>',
      "federate the objects of a YAML file ('-' for stdin) offline; only prints YAML, takes no arguments",
    )
    .option(
      '-s, --skip-api-resources <names>',
      'with --contents: comma-separated short names, kinds, plurals, plural.group names or groups to skip',
      collectList,
      [],
    )
    .option(
      '--federated-group <group>',
      'API group of a federated type this command enables or assumes',
      FEDERATED_GROUP,
    )
    .option(
      '--federated-version <version>',
      'API version of a federated type this command enables or assumes',
      FEDERATED_VERSION,
    );
  withGlobalFlags(federateCmd).action(
    async (typeName: string | undefined, resourceName: string | undefined, o: FederateFlags) => {
      const args = [typeName, resourceName].filter((a): a is string => a !== undefined);
      // Flag errors first, before the kubeconfig is even read (KubeFed's Complete before Run).
      const { output } = validateFederateArgs(args, o);
      const common = {
        kubefedNamespace: o.kubefedNamespace,
        typeName,
        resourceName,
        output,
        enableType: o.enableType,
        contents: o.contents,
        skipApiResources: o.skipApiResources,
        federatedGroup: o.federatedGroup,
        federatedVersion: o.federatedVersion,
        dryRun: o.dryRun,
        out,
        warn,
      };
      if (o.filename) {
        // Offline: no kubeconfig is needed.
        await federate({ ...common, filename: o.filename, namespace: o.namespace ?? 'default' });
        return;
      }
      await withHostAndNamespace(o, async (host, contextNamespace) => {
        await federate({ ...common, host, namespace: o.namespace ?? contextNamespace });
        if (o.enableType && !o.dryRun && output !== 'yaml')
          await syncScopedMembersAfterTypeChange(o, host, out, warn);
      });
    },
  );

  const orphaningCmd = new Command('orphaning-deletion').description(
    'Manage the orphaning deletion policy (kubefed.io/orphan) of federated resources',
  );
  const orphaningActions: Array<[OrphaningAction, string]> = [
    ['enable', 'Keep the member resources when the federated resource is deleted (only unlabel them)'],
    ['disable', 'Delete the member resources with the federated resource (the default)'],
    ['status', 'Print Enabled or Disabled'],
  ];
  for (const [action, description] of orphaningActions) {
    const sub = new Command(action)
      .description(description)
      .usage('<type> <name> [options]')
      .argument('[type]', 'federated type, e.g. FederatedDeployment, federateddeployments or fdeploy')
      .argument('[name]', 'name of the federated resource')
      .option(
        '-n, --namespace <namespace>',
        'namespace of the federated resource (default: the host context namespace, else default)',
      );
    withGlobalFlags(sub);
    // Accepted but meaningless here; KubeFed hides them too.
    for (const flag of sub.options)
      if (flag.long === '--kubefed-namespace' || flag.long === '--dry-run') flag.hideHelp();
    sub.action(async (typeName: string | undefined, name: string | undefined, o: OrphaningFlags) => {
      if (!typeName) throw new CommandError('resource type is required');
      if (!name) throw new CommandError('resource name is required');
      await withHostAndNamespace(o, (host, contextNamespace) =>
        orphaningDeletion({
          host,
          action,
          typeName,
          name,
          namespace: o.namespace ?? contextNamespace,
          dryRun: o.dryRun,
          out,
          warn,
        }),
      );
    });
    orphaningCmd.addCommand(sub);
  }

  // Like collectList, but absent stays undefined so that `--clusters ''` (no candidates) differs from no flag.
  const collectNames = (value: string, previous: string[] | undefined): string[] =>
    collectList(value, previous ?? []);
  const collectRaw = (value: string, previous: string[] | undefined): string[] => [
    ...(previous ?? []),
    value,
  ];
  const planCmd = new Command('plan')
    .description(
      'Explain how a ReplicaSchedulingPreference spreads replicas over clusters, or how a (Cluster)PropagationPolicy places a template, without changing anything',
    )
    .usage(
      '-f RSP.yaml --clusters A,B,C [--current A=3,B=2] [--capacity C=10] [--key NS/NAME] [-o json|table]\n' +
        '       -f TEMPLATE.yaml --policy POLICY.yaml (--clusters-file CLUSTERS.yaml [--clusters A,B] [--current A=3] [--capacity A=10] | --live) [-o json|table]',
    )
    .option('-f, --filename <file>', "the ReplicaSchedulingPreference YAML file ('-' for stdin)")
    .option(
      '--clusters <names>',
      'comma-separated candidate clusters (KubeFed: the ready ones)',
      collectNames,
    )
    .option('--current <counts>', 'replicas running per cluster, e.g. A=3,B=2', collectRaw)
    .option(
      '--capacity <counts>',
      'capacity per cluster (known from unschedulable pods), e.g. C=10',
      collectRaw,
    )
    .option(
      '--key <key>',
      "tie-break key, namespace/name of the federated object (default: the RSP's metadata.namespace/name; '' is valid)",
    )
    .option('-o, --output <format>', 'json or table', 'table')
    .option('--live', 'read candidate clusters, current replicas and capacity from the federation', false)
    .option(
      '--policy <file>',
      'plan the -f template under this PropagationPolicy or ClusterPropagationPolicy (Karmada scheduling) instead of an RSP',
    )
    .option(
      '--clusters-file <file>',
      'with --policy, offline: KubeFedClusters (labels, spec.taints, status) to schedule over, besides --clusters',
    );
  const readPlanFile = (name: string): { name: string; text: string } => {
    try {
      return { name, text: readPlanInput(name) };
    } catch (e) {
      throw new CommandError(`Failed to read file "${name}": ${errorMessage(e)}`);
    }
  };
  const planPolicy = async (o: PlanFlags, filename: string, policyFile: string, output: PlanOutput) => {
    if (o.key !== undefined)
      throw new CommandError('--key is for ReplicaSchedulingPreferences; drop it with --policy');
    const inputs = [filename, policyFile, ...(o.clustersFile !== undefined ? [o.clustersFile] : [])];
    const files = parsePolicyPlanFiles(inputs.map(readPlanFile), warn);
    if (!o.live) {
      const clusters = offlineClusters(files.clusters, o.clusters ?? []);
      if (clusters.length === 0)
        throw new CommandError('--policy needs clusters: --clusters-file, --clusters or --live');
      const names = clusters.map((c) => c.name);
      const state = offlinePolicyState(
        clusters,
        parseReplicaFlag('--current', o.current ?? [], names),
        parseReplicaFlag('--capacity', o.capacity ?? [], names),
      );
      runPolicyPlan(files, state, output, out);
      return;
    }
    if (o.clusters || o.current || o.capacity || files.clusters.length > 0)
      throw new CommandError(
        '--live reads the clusters, the binding and capacity from the federation; drop --clusters/--current/--capacity and KubeFedClusters from the files',
      );
    await withHost(o, async (host) => {
      const state = await livePolicyState({ host, kubefedNamespace: o.kubefedNamespace, files, warn });
      runPolicyPlan(files, state, output, out);
    });
  };
  withGlobalFlags(planCmd).action(async (o: PlanFlags) => {
    const output = parsePlanOutput(o.output);
    if (o.filename === undefined) throw new CommandError('-f/--filename is required');
    if (o.policy !== undefined) {
      await planPolicy(o, o.filename, o.policy, output);
      return;
    }
    if (o.clustersFile !== undefined) throw new CommandError('--clusters-file needs --policy');
    if (!o.live) {
      const source = offlineSource({ clusters: o.clusters, current: o.current, capacity: o.capacity });
      runPlan({ filename: o.filename, source, key: o.key, output, out, warn });
      return;
    }
    if (o.clusters || o.current || o.capacity)
      throw new CommandError(
        '--live reads the clusters, current replicas and capacity itself; drop --clusters/--current/--capacity',
      );
    const filename = o.filename;
    let text: string;
    try {
      text = readPlanInput(filename);
    } catch (e) {
      throw new CommandError(`Failed to read file "${filename}": ${errorMessage(e)}`);
    }
    const rsp = parseRspDocument(text, filename);
    await withHost(o, async (host) => {
      const source = await liveSource({ host, kubefedNamespace: o.kubefedNamespace, rsp, warn });
      runPlan({ filename, source, key: o.key, output, out, warn, readInput: () => text });
    });
  });

  const explainCmd = new Command('explain')
    .description(
      'Explain which policy claims resource templates and why, where they land and what each cluster receives',
    )
    .usage('-f FILE [-f FILE...] [--clusters A,B] [-o text|yaml|json] | --live (TYPE NAME | -f FILE) [-n NS]')
    .argument('[type-name]', 'with --live: type of a template on the federation API server (e.g. deployment)')
    .argument('[resource-name]', 'with --live: name of that template')
    .option(
      '-f, --filename <file>',
      "YAML with templates, PropagationPolicies, ClusterPropagationPolicies, OverridePolicies, ClusterOverridePolicies and KubeFedClusters ('-' for stdin; repeatable)",
      (v: string, prev: string[]) => [...prev, v],
      [],
    )
    .option(
      '-n, --namespace <namespace>',
      'namespace of templates and namespaced policies that name none (default: the context namespace with --live, else default)',
    )
    .option(
      '--clusters <names>',
      'offline: Ready clusters without labels, besides KubeFedClusters of the files',
      collectNames,
    )
    .option('-o, --output <format>', 'text, yaml or json (yaml/json include the full member objects)', 'text')
    .option('--live', 'read policies, clusters and bindings from the federation API server', false);
  withGlobalFlags(explainCmd);
  for (const flag of explainCmd.options) if (flag.long === '--dry-run') flag.hideHelp();
  explainCmd.action(async (typeName: string | undefined, name: string | undefined, o: ExplainFlags) => {
    const output = parseExplainOutput(o.output);
    if (!o.live) {
      if (typeName !== undefined)
        throw new CommandError('TYPE NAME needs --live; offline, give the templates with -f');
      runExplainOffline({
        filenames: o.filename,
        namespace: o.namespace ?? 'default',
        clusterNames: o.clusters ?? [],
        kubefedNamespace: o.kubefedNamespace,
        output,
        out,
      });
      return;
    }
    if (o.clusters) throw new CommandError('--live reads the clusters from the federation; drop --clusters');
    await withHostAndNamespace(o, (host, contextNamespace) =>
      runExplainLive({
        host,
        typeName,
        name,
        filenames: o.filename,
        namespace: o.namespace ?? contextNamespace,
        kubefedNamespace: o.kubefedNamespace,
        output,
        out,
        warn,
      }),
    );
  });

  const parseBoolFlag = (value: string | undefined): boolean => {
    if (value === undefined || ['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
    if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
    throw new CommandError(`invalid argument "${value}" for "--auto-create-policy" flag: not a boolean`);
  };
  const promoteCmd = new Command('promote')
    .description(
      'Promote an object running in a member to a resource template on the federation API server, with a policy that keeps it there (adopting the running copy)',
    )
    .usage(
      'TYPE NAME [-n NAMESPACE] -C CLUSTER [--policy-name NAME] [--auto-create-policy=false] [-d] [-o yaml|json] [--dry-run]',
    )
    .argument('[type-name]', 'type of the object: plural, singular, kind, short name or plural.group')
    .argument('[resource-name]', 'name of the object in the member')
    .option(
      '-n, --namespace <namespace>',
      'namespace of the object (default: the host context namespace, else default)',
    )
    .option('-C, --cluster <name>', 'the joined member cluster that runs the object')
    .option(
      '--cluster-context <context>',
      "read the object through this kubeconfig context (default: the KubeFedCluster's endpoint and token)",
    )
    .option('--cluster-kubeconfig <path>', 'kubeconfig of --cluster-context (default: --kubeconfig)')
    .option(
      '--policy-name <name>',
      'name of the PropagationPolicy (ClusterPropagationPolicy) created (default: the object name with a hash suffix)',
    )
    .option(
      '--auto-create-policy [bool]',
      'create the PropagationPolicy (ClusterPropagationPolicy for cluster-scoped objects)',
      parseBoolFlag,
      true,
    )
    .option(
      '-d, --dependencies',
      'also promote the ConfigMaps, Secrets, ServiceAccounts and PVCs the object references (the policy propagates them: propagateDeps)',
      false,
    )
    .option('-o, --output <format>', 'print the template and policy instead of creating them: yaml or json');
  withGlobalFlags(promoteCmd).action(
    async (typeName: string | undefined, resourceName: string | undefined, o: PromoteFlags) => {
      if (!typeName || !resourceName)
        throw new CommandError('incorrect command format: promote TYPE NAME -n NAMESPACE -C CLUSTER');
      const cluster = o.cluster;
      if (!cluster) throw new CommandError('the cluster cannot be empty: pass -C/--cluster');
      const output = parsePromoteOutput(o.output);
      if (o.clusterKubeconfig && !o.clusterContext)
        throw new CommandError('--cluster-kubeconfig needs --cluster-context');
      const memberCtx = o.clusterContext
        ? new KubeconfigContext(o.clusterKubeconfig ?? o.kubeconfig)
        : undefined;
      try {
        const member = o.clusterContext ? memberCtx?.client(o.clusterContext) : undefined;
        await withHostAndNamespace(o, (host, contextNamespace) =>
          promote({
            host,
            member,
            cluster,
            kubefedNamespace: o.kubefedNamespace,
            typeName,
            name: resourceName,
            namespace: o.namespace ?? contextNamespace,
            policyName: o.policyName,
            autoCreatePolicy: o.autoCreatePolicy,
            dependencies: o.dependencies,
            output,
            dryRun: o.dryRun,
            out,
            warn,
          }),
        );
      } finally {
        await memberCtx?.close();
      }
    },
  );

  // Cluster taints (docs/cluster-taints.md): karmadactl's cordon, uncordon and taint on KubeFedClusters.
  const cordonCmds = ([true, false] as const).map((cordon) => {
    const cmd = new Command(cordon ? 'cordon' : 'uncordon')
      .description(
        cordon
          ? 'Mark cluster as unschedulable: new placement stays off it (taint cluster.karmada.io/unschedulable:NoSchedule)'
          : 'Mark cluster as schedulable (remove the cluster.karmada.io/unschedulable:NoSchedule taint)',
      )
      .argument('<cluster-name>', 'name of the KubeFedCluster');
    withGlobalFlags(cmd).action(async (cluster: string, o: GlobalFlags) => {
      await withHost(o, (host) =>
        cordonCluster({ host, kubefedNamespace: o.kubefedNamespace, cluster, cordon, dryRun: o.dryRun, out }),
      );
    });
    return cmd;
  });
  const taintCmd = new Command('taint')
    .description(
      'Update the taints on a cluster (KubeFedCluster spec.taints), as kubectl taint does on nodes',
    )
    .usage('clusters NAME KEY_1=VAL_1:TAINT_EFFECT_1 ... KEY_N=VAL_N:TAINT_EFFECT_N [--overwrite]')
    .argument('[args...]', 'clusters NAME, then taints to add (key[=value]:effect) or remove (key[:effect]-)')
    .option(
      '--overwrite',
      'allow taints to be overwritten, otherwise reject updates that overwrite existing taints',
      false,
    )
    .addHelpText(
      'after',
      '\nExamples:\n' +
        '  # Taint cluster "foo" with key "dedicated", value "special-user" and effect "NoSchedule"\n' +
        '  kubefedctl taint clusters foo dedicated=special-user:NoSchedule\n' +
        '  # Remove the taints with key "dedicated" and effect "NoSchedule" from cluster "foo"\n' +
        '  kubefedctl taint clusters foo dedicated:NoSchedule-\n' +
        '  # Remove every taint with key "dedicated" from cluster "foo"\n' +
        '  kubefedctl taint clusters foo dedicated-',
    );
  withGlobalFlags(taintCmd).action(async (args: string[], o: GlobalFlags & { overwrite: boolean }) => {
    // A wrong argument is reported before any kubeconfig is read.
    parseTaintSpecs(parseTaintArgs(args).specs, '');
    await withHost(o, (host) =>
      taintCluster({
        host,
        kubefedNamespace: o.kubefedNamespace,
        args,
        overwrite: o.overwrite,
        dryRun: o.dryRun,
        out,
      }),
    );
  });

  type LocalUpFlags = {
    members: string;
    dir: string;
    kubefedNamespace: string;
    sample: string;
    hostAsMember: boolean;
  };
  const localUpCmd = new Command('local-up')
    .description(
      'Start a local federation (host + members on this machine), install kubefed-ts and join the members',
    )
    .option('--members <n|names>', 'member count, or comma-separated member names', 'cluster1,cluster2')
    .option('--dir <path>', 'where state, logs and the kubeconfig are written', DEFAULT_LOCAL_DIR)
    .option('--kubefed-namespace <ns>', 'namespace of the KubeFed control plane', DEFAULT_KUBEFED_NAMESPACE)
    .option(
      '--sample <file>',
      'Namespaces and Federated<Kind> objects to propagate once the members are Ready ("" for none)',
      DEFAULT_SAMPLE,
    )
    .option('--host-as-member', 'join the host as a member too, named after its context ("host")', false)
    .action(async (o: LocalUpFlags) => {
      const members = /^\d+$/.test(o.members)
        ? Array.from({ length: Number(o.members) }, (_, i) => `cluster${i + 1}`)
        : o.members
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
      if (members.length === 0) throw new CommandError('--members: at least one member is needed');
      if (members.includes('host'))
        throw new CommandError('--members: "host" is the name of the host cluster');
      await localUp({
        dir: o.dir,
        members,
        namespace: o.kubefedNamespace,
        sample: o.sample,
        hostAsMember: o.hostAsMember,
        out,
      });
    });

  const localDownCmd = new Command('local-down')
    .description('Stop the local federation started by local-up and remove its state')
    .option('--dir <path>', 'the directory given to local-up', DEFAULT_LOCAL_DIR)
    .action(async (o: { dir: string }) => {
      await localDown({ dir: o.dir, out });
    });

  const migrateCmd = new Command('migrate-from-kubefed').description(
    "Takes over a KubeFed v0.10 control plane in place: refuses while KubeFed's controller manager runs, " +
      "then replaces KubeFed's CRDs with kubefed-ts's, keeping every object (docs/migrating-from-kubefed.md)",
  );
  withGlobalFlags(migrateCmd).action(async (o: GlobalFlags) => {
    await withHost(o, (host) =>
      migrateFromKubeFed({ host, namespace: o.kubefedNamespace, dryRun: o.dryRun, out, warn }),
    );
  });

  // Multi-cluster services (docs/mcs.md): what each member says about each exported service.
  const mcsCmd = new Command('mcs').description(
    'Multi-cluster services (KEP-1645 ServiceExport / ServiceImport) across the member clusters',
  );
  const mcsStatusCmd = new Command('status')
    .description(
      'Show, per exported service, what every member cluster has: its cluster id, its ServiceExport and conditions (Valid, Conflict, Ready), its ServiceImport (type, IPs) and the ready endpoints of each source cluster in its MCS EndpointSlices',
    )
    .usage('[SERVICE] [-n NAMESPACE | -A] [-o table|json|yaml]')
    .argument('[service]', 'only the service of this name')
    .option(
      '-n, --namespace <namespace>',
      'namespace of the services (default: the host context namespace, else default)',
    )
    .option('-A, --all-namespaces', 'services in every namespace', false)
    .option('-o, --output <format>', 'table, json or yaml', 'table');
  withGlobalFlags(mcsStatusCmd);
  for (const flag of mcsStatusCmd.options) if (flag.long === '--dry-run') flag.hideHelp();
  mcsStatusCmd.action(
    async (
      service: string | undefined,
      o: GlobalFlags & { namespace?: string; allNamespaces: boolean; output?: string },
    ) => {
      const output = parseMcsStatusOutput(o.output);
      await withHostAndNamespace(o, async (host, contextNamespace) => {
        await mcsStatus({
          host,
          kubefedNamespace: o.kubefedNamespace,
          namespace: o.allNamespaces ? undefined : (o.namespace ?? contextNamespace),
          service,
          output,
          out,
        });
      });
    },
  );
  mcsCmd.addCommand(mcsStatusCmd);

  const versionCmd = new Command('version').description('Print the version').action(() => {
    out(`kubefedctl version: ${VERSION} (kubefed-ts, KubeFed v0.10 compatible)`);
  });

  program
    .addCommand(joinCmd)
    .addCommand(unjoinCmd)
    .addCommand(enableCmd)
    .addCommand(disableCmd)
    .addCommand(syncRbacCommand(withGlobalFlags, out, warn))
    .addCommand(federateCmd)
    .addCommand(orphaningCmd)
    .addCommand(planCmd)
    .addCommand(explainCmd)
    .addCommand(promoteCmd)
    .addCommand(cordonCmds[0] as Command)
    .addCommand(cordonCmds[1] as Command)
    .addCommand(taintCmd)
    .addCommand(mcsCmd)
    .addCommand(migrateCmd)
    .addCommand(localUpCmd)
    .addCommand(localDownCmd)
    .addCommand(versionCmd);
  return program;
}

/**
 * Runs kubefedctl (argv as process.argv: node, script, arguments); every failure becomes one `Error: ...`
 * line on stderr and exit code 1. `name`: see buildProgram.
 */
export async function run(argv: string[], name?: string): Promise<number> {
  const program = buildProgram(name);
  program.exitOverride();
  // kubectl-style flags (`-n=ns`, klog's flags anywhere) first, as pflag would read them.
  const normalized = normalizeArgs(argv.slice(2), flagShapes(program));
  if (!normalized.ok) {
    process.stderr.write(`Error: ${normalized.error}\n`);
    return 1;
  }
  try {
    await program.parseAsync([...argv.slice(0, 2), ...normalized.value.args]);
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

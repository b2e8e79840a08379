export type KubeconfigErrorReason =
  | 'NotFound'
  | 'Invalid'
  | 'ContextNotFound'
  | 'Unsupported'
  | 'ExecPluginFailed';

/** A kubeconfig problem; the message is written to be printed as a single CLI error line. */
export class KubeconfigError extends Error {
  readonly reason: KubeconfigErrorReason;

  constructor(reason: KubeconfigErrorReason, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'KubeconfigError';
    this.reason = reason;
  }
}

/** Short human text for a Node fs error, e.g. "permission denied". */
export function describeFsError(err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    default:
      return err instanceof Error ? err.message : String(err);
  }
}

/** Why a KubeFedCluster cannot be turned into a client; reported as its ConfigMalformed condition. */
export class ClusterConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClusterConfigError';
  }
}

import { type Static, Type } from 'typebox';
import { ObjectMetaSchema } from '../../meta.ts';
import { Int64, StringEnum, TypedString } from '../../schema-helpers.ts';
import { ResourceScope } from './kubefedconfig.ts';

export const FEDERATED_TYPE_CONFIG_KIND = 'FederatedTypeConfig';
export const FEDERATED_TYPE_CONFIG_LIST_KIND = 'FederatedTypeConfigList';
export const FEDERATED_TYPE_CONFIG_PLURAL = 'federatedtypeconfigs';
export const FEDERATED_TYPE_CONFIG_SINGULAR = 'federatedtypeconfig';
export const FEDERATED_TYPE_CONFIG_SHORT_NAMES = ['ftc'] as const;

/** Lets the FTC controller stop a type's controllers before the FTC disappears. */
export const FEDERATED_TYPE_CONFIG_FINALIZER = 'core.kubefed.io/federated-type-config';

export const PropagationMode = { Enabled: 'Enabled', Disabled: 'Disabled' } as const;
export type PropagationMode = (typeof PropagationMode)[keyof typeof PropagationMode];

export const StatusCollectionMode = { Enabled: 'Enabled', Disabled: 'Disabled' } as const;
export type StatusCollectionMode = (typeof StatusCollectionMode)[keyof typeof StatusCollectionMode];

export const ControllerStatus = { Running: 'Running', NotRunning: 'NotRunning' } as const;
export type ControllerStatus = (typeof ControllerStatus)[keyof typeof ControllerStatus];

export const APIResourceSchema = Type.Object(
  {
    group: Type.Optional(Type.String({ description: 'Group of the resource; empty for the core group.' })),
    version: Type.String({ description: 'Version of the resource.' }),
    kind: Type.String({ description: 'Camel-cased singular name of the resource (e.g. ConfigMap).' }),
    pluralName: Type.String({ description: 'Lower-cased plural name of the resource (e.g. configmaps).' }),
    scope: StringEnum([ResourceScope.Cluster, ResourceScope.Namespaced], {
      description: 'Scope of the resource: Cluster or Namespaced.',
    }),
  },
  { description: 'APIResource identifies an API type for the dynamic client.' },
);
export type APIResource = Static<typeof APIResourceSchema>;

export const FederatedTypeConfigSpecSchema = Type.Object(
  {
    targetType: APIResourceSchema,
    propagation: StringEnum([PropagationMode.Enabled, PropagationMode.Disabled], {
      description: 'Whether propagation to member clusters is enabled.',
    }),
    federatedType: APIResourceSchema,
    statusType: Type.Optional(APIResourceSchema),
    statusCollection: Type.Optional(
      StringEnum([StatusCollectionMode.Enabled, StatusCollectionMode.Disabled], {
        description: 'Whether the status of member-cluster objects is collected.',
      }),
    ),
  },
  { description: 'FederatedTypeConfigSpec defines the desired state of FederatedTypeConfig.' },
);
export type FederatedTypeConfigSpec = Static<typeof FederatedTypeConfigSpecSchema>;

export const FederatedTypeConfigStatusSchema = Type.Object(
  {
    observedGeneration: Int64('Generation of the FederatedTypeConfig last acted on by the controller.'),
    propagationController: TypedString<ControllerStatus>({
      description: 'Whether the sync controller is running: Running or NotRunning.',
    }),
    statusController: Type.Optional(
      TypedString<ControllerStatus>({ description: 'Whether the status controller is running.' }),
    ),
  },
  { description: 'FederatedTypeConfigStatus defines the observed state of FederatedTypeConfig.' },
);
export type FederatedTypeConfigStatus = Static<typeof FederatedTypeConfigStatusSchema>;

export const FederatedTypeConfigSchema = Type.Object(
  {
    apiVersion: Type.Optional(Type.String()),
    kind: Type.Optional(Type.String()),
    metadata: Type.Optional(ObjectMetaSchema),
    spec: FederatedTypeConfigSpecSchema,
    status: Type.Optional(FederatedTypeConfigStatusSchema),
  },
  {
    description:
      'FederatedTypeConfig enables federation of one API type (the target type) through a federated ' +
      'type that carries template, placement and overrides.',
  },
);
export type FederatedTypeConfig = Static<typeof FederatedTypeConfigSchema>;

/**
 * KubeFed's PluralName(kind): lower-case, then add "es" after s/x/ch/sh/z/o, turn a final
 * "y" into "ies", otherwise add "s". Used to default pluralName fields.
 */
export function pluralName(kind: string): string {
  const lower = kind.toLowerCase();
  if (/(s|x|ch|sh|z|o)$/.test(lower)) return `${lower}es`;
  if (lower.endsWith('y')) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

import { Type } from 'typebox';
import type { ObjectMeta } from '../kube/client/types.ts';

/** `metadata` in a CRD schema: the API server rejects anything more specific than `type: object`. */
export const ObjectMetaSchema = Type.Unsafe<ObjectMeta>({ type: 'object' });

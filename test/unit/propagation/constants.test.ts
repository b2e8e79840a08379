import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AggregateReason,
  ClusterStatus,
  DELETE_OPTION_ANNOTATION,
  inClusterFailureReason,
  isRecoverable,
  MANAGED_LABEL,
  ORPHAN_ANNOTATION,
  SYNC_FINALIZER,
} from '../../../src/propagation/constants.ts';

describe('constants', () => {
  test('wire names', () => {
    assert.equal(MANAGED_LABEL, 'kubefed.io/managed');
    assert.equal(ORPHAN_ANNOTATION, 'kubefed.io/orphan');
    assert.equal(DELETE_OPTION_ANNOTATION, 'kubefed.io/deleteoption');
    assert.equal(SYNC_FINALIZER, 'kubefed.io/sync-controller');
  });

  test('every status value equals its name', () => {
    for (const [key, value] of Object.entries(ClusterStatus)) assert.equal(value, key);
    for (const [key, value] of Object.entries(AggregateReason)) assert.equal(value, key);
    assert.equal(Object.keys(ClusterStatus).length, 21);
    assert.equal(Object.keys(AggregateReason).length, 4);
  });

  test('recoverable statuses (KubeFed #1428)', () => {
    const recoverable = Object.values(ClusterStatus).filter(isRecoverable).sort();
    assert.deepEqual(recoverable, [
      'ClientRetrievalFailed',
      'CreationFailed',
      'CreationTimedOut',
      'DeletionFailed',
      'DeletionTimedOut',
      'LabelRemovalFailed',
      'LabelRemovalTimedOut',
      'RetrievalFailed',
      'UpdateFailed',
      'UpdateTimedOut',
    ]);
    assert.equal(isRecoverable(''), false);
    assert.equal(isRecoverable('Whatever'), false);
  });
});

describe('inClusterFailureReason', () => {
  test('names failed member operations as KubeFed does', () => {
    assert.equal(inClusterFailureReason('create'), 'CreateInClusterFailed');
    assert.equal(inClusterFailureReason('retrieve'), 'RetrieveInClusterFailed');
    assert.equal(
      inClusterFailureReason('remove managed label from'),
      'RemoveManagedLabelFromInClusterFailed',
    );
  });
});

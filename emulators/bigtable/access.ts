/**
 * IAM in the Bigtable emulator (`--iam <file>`): who calls (a call's bearer token, else the member
 * of the port its connection came in on, else the owner: emulators/common/iam-enforce.ts), the
 * permission each RPC needs on which resource (`DATA_NEEDS`, `ADMIN_NEEDS`), and the refusal, as
 * Bigtable words it. Without `--iam` there is no `BigtableAccess` and nothing is checked.
 *
 * Which permission a method needs is Google's audit-logging pages for the two APIs
 * (docs.cloud.google.com/bigtable/docs/audit-logging and …/audit-logging-bigtableadmin): ReadRows
 * `readRows`, SampleRowKeys `sampleRowKeys`, MutateRow, MutateRows and CheckAndMutateRow
 * `mutateRows`, ReadModifyWriteRow `mutateRows` and `readRows`, PingAndWarm `instances.ping` on
 * the instance; CreateTable `tables.create` and ListTables `tables.list` on the instance (the
 * request's parent), GetTable `get`, DeleteTable `delete`, ModifyColumnFamilies `update` and
 * DropRowRange `mutateRows` on the table. A policy may be bound on the project, the instance or the
 * table (access-control page): a binding covers what is below it (iam-policy.ts). The admin page
 * also lists `bigtable.instances.list` for ModifyColumnFamilies, on no resource it names; the
 * emulator checks `tables.update` alone.
 *
 * A data request naming an authorized or materialized view is checked for nothing here: the
 * emulator refuses it as UNIMPLEMENTED (data.ts).
 */
import { statusWithErrorInfo } from '@eventbus/emulator-common/grpc-status.ts';
import {
  type Caller,
  type CheckRequest,
  type Denial,
  denialInfo,
  denialSuffix,
  type Enforcement,
  type IdentityListeners,
  UNAUTHENTICATED_MESSAGE,
} from '@eventbus/emulator-common/iam-enforce.ts';
import * as grpc from '@grpc/grpc-js';
import { BigtableError, grpcError } from './errors.ts';
import type { Obj } from './rpc.ts';

/** `resource.type` of an instance and a table, as IAM conditions see them. */
const INSTANCE_TYPE = 'bigtableadmin.googleapis.com/Instance';
const TABLE_TYPE = 'bigtableadmin.googleapis.com/Table';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * `permission` on the resource `name`. A name of no known shape is checked as given: a grant on
 * its project still covers it, and the handler then refuses the name itself.
 */
function on(permission: string, name: unknown): CheckRequest {
  const resource = text(name);
  const resourceType = /^projects\/[^/]+\/instances\/[^/]+$/.test(resource)
    ? INSTANCE_TYPE
    : /^projects\/[^/]+\/instances\/[^/]+\/tables\/[^/]+$/.test(resource)
      ? TABLE_TYPE
      : undefined;
  return { permission, resource, ...(resourceType !== undefined ? { resourceType } : {}) };
}

type Need = (request: Obj) => CheckRequest[];

/** A data request's permissions on its table (none for a view: refused as UNIMPLEMENTED). */
const onTable =
  (...permissions: string[]): Need =>
  (r) =>
    r['authorizedViewName'] || r['materializedViewName'] ? [] : permissions.map((p) => on(p, r['tableName']));
const onField =
  (permission: string, key: string): Need =>
  (r) => [on(permission, r[key])];

/** google.bigtable.v2.Bigtable: every method the emulator serves. */
export const DATA_NEEDS: Readonly<Record<string, Need>> = {
  ReadRows: onTable('bigtable.tables.readRows'),
  SampleRowKeys: onTable('bigtable.tables.sampleRowKeys'),
  MutateRow: onTable('bigtable.tables.mutateRows'),
  MutateRows: onTable('bigtable.tables.mutateRows'),
  CheckAndMutateRow: onTable('bigtable.tables.mutateRows'),
  ReadModifyWriteRow: onTable('bigtable.tables.mutateRows', 'bigtable.tables.readRows'),
  PingAndWarm: onField('bigtable.instances.ping', 'name'),
};

/** google.bigtable.admin.v2.BigtableTableAdmin: every method the emulator serves. */
export const ADMIN_NEEDS: Readonly<Record<string, Need>> = {
  CreateTable: onField('bigtable.tables.create', 'parent'),
  GetTable: onField('bigtable.tables.get', 'name'),
  ListTables: onField('bigtable.tables.list', 'parent'),
  DeleteTable: onField('bigtable.tables.delete', 'name'),
  ModifyColumnFamilies: onField('bigtable.tables.update', 'name'),
  DropRowRange: onField('bigtable.tables.mutateRows', 'name'),
};

export type Api = 'data' | 'admin';
const DOMAINS: Readonly<Record<Api, string>> = {
  data: 'bigtable.googleapis.com',
  admin: 'bigtableadmin.googleapis.com',
};

/**
 * Bigtable's refusal: PERMISSION_DENIED, "Access denied. Missing IAM permission: <permission>."
 * (what Bigtable answers), then the sentence every emulator adds, and the ErrorInfo in the
 * `grpc-status-details-bin` trailer as Google's services attach it.
 */
export function refusal(api: Api, d: Denial): BigtableError {
  const message = `Access denied. Missing IAM permission: ${d.permission}. ${denialSuffix(d)}`;
  const info = denialInfo(DOMAINS[api], d);
  const trailers = new grpc.Metadata();
  trailers.set(
    'grpc-status-details-bin',
    statusWithErrorInfo(
      grpc.status.PERMISSION_DENIED,
      message,
      'IAM_PERMISSION_DENIED',
      DOMAINS[api],
      new Map(Object.entries(info['metadata'] as Record<string, string>)),
    ),
  );
  return new BigtableError('PERMISSION_DENIED', message, trailers);
}

/** The access file's policies, the identity ports, and the check each call passes first. */
export class BigtableAccess {
  private readonly enforcement: Enforcement;
  /** Set once the identity ports listen (before the emulator answers anything on them). */
  identities: IdentityListeners | undefined;

  constructor(enforcement: Enforcement) {
    this.enforcement = enforcement;
  }

  /** The caller of a call; a token that does not verify is UNAUTHENTICATED. */
  callerOfCall(call: { readonly metadata: grpc.Metadata }): Caller {
    const auth = call.metadata.get('authorization')[0];
    const caller = this.enforcement.callerOf(
      typeof auth === 'string' ? auth : undefined,
      this.identities?.memberOfCall(call),
    );
    if (caller === undefined) throw new BigtableError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
    return caller;
  }

  /** Refuses (PERMISSION_DENIED) the first permission of `rpc` the caller does not hold. */
  authorize(api: Api, caller: Caller, rpc: string, request: Obj): void {
    const need = (api === 'data' ? DATA_NEEDS : ADMIN_NEEDS)[rpc];
    if (need === undefined) throw new Error(`no IAM permission is mapped for ${rpc}`);
    for (const check of need(request)) {
      const d = this.enforcement.check(caller, check);
      if (d) throw refusal(api, d);
    }
  }
}

/**
 * A service's handlers, each run once its caller holds what the RPC needs; a refusal is the
 * call's status (a server stream's too, before anything is sent). Without `access`, the handlers
 * as they are. A handler with no entry in the needs is a startup error: nothing goes unchecked.
 */
export function guarded(
  access: BigtableAccess | undefined,
  api: Api,
  service: grpc.ServiceDefinition,
  handlers: Record<string, unknown>,
): grpc.UntypedServiceImplementation {
  if (!access) return handlers as grpc.UntypedServiceImplementation;
  const needs = api === 'data' ? DATA_NEEDS : ADMIN_NEEDS;
  const out: grpc.UntypedServiceImplementation = {};
  for (const [rpc, handler] of Object.entries(handlers)) {
    if (!(rpc in needs)) throw new Error(`no IAM permission is mapped for ${rpc}`);
    const check = (call: { readonly metadata: grpc.Metadata; readonly request: Obj }): void =>
      access.authorize(api, access.callerOfCall(call), rpc, call.request);
    if (service[rpc]?.responseStream) {
      const run = handler as grpc.handleServerStreamingCall<Obj, Obj>;
      out[rpc] = ((call) => {
        try {
          check(call);
        } catch (err) {
          call.emit('error', grpcError(err));
          return;
        }
        run(call);
      }) satisfies grpc.handleServerStreamingCall<Obj, Obj>;
    } else {
      const run = handler as grpc.handleUnaryCall<Obj, Obj>;
      out[rpc] = ((call, callback) => {
        try {
          check(call);
        } catch (err) {
          callback(grpcError(err));
          return;
        }
        run(call, callback);
      }) satisfies grpc.handleUnaryCall<Obj, Obj>;
    }
  }
  return out;
}

/**
 * IAM in the Pub/Sub emulator (`--iam <file>`): who calls (a call's bearer token, else the member
 * of the port its connection came in on, else the owner: emulators/common/iam-enforce.ts), the
 * permission each RPC needs on which resource (`NEEDS`, one table for the gRPC and the REST
 * surface: REST routes name the RPC they serve and pass a request of the gRPC shape), and the
 * refusals, as Pub/Sub words them. The map is in README.md, "Access control". Without `--iam`
 * there is no `PubSubAccess`, and the surfaces check nothing.
 *
 * The emulator's own deliveries (push, BigQuery and Cloud Storage subscriptions) are the Pub/Sub
 * service agent's: they are not calls, and nothing here sees them.
 */
import type { IncomingMessage } from 'node:http';
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
import type { IamPolicy } from '@eventbus/emulator-common/iam-policy.ts';
import * as grpc from '@grpc/grpc-js';
import { ApiError } from './errors.ts';
import { DetailedApiError } from './status-details.ts';

type Obj = Record<string, unknown>;

const DOMAIN = 'pubsub.googleapis.com';

/** `resource.type` of each kind of name, as IAM conditions see it. */
const TYPES: Readonly<Record<string, string>> = {
  topics: 'pubsub.googleapis.com/Topic',
  subscriptions: 'pubsub.googleapis.com/Subscription',
  snapshots: 'pubsub.googleapis.com/Snapshot',
  schemas: 'pubsub.googleapis.com/Schema',
};
const PROJECT_TYPE = 'cloudresourcemanager.googleapis.com/Project';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const field = (v: unknown): Obj => (v && typeof v === 'object' ? (v as Obj) : {});

/**
 * `permission` on the resource `name` (a schema's revision suffix `@…` dropped). A name of no
 * known shape is checked as given: a grant on its project still covers it, and the handler then
 * refuses the name itself.
 */
function on(permission: string, name: unknown): CheckRequest {
  const resource = text(name).replace(/^(projects\/[^/]+\/schemas\/[^/@]+)@.*$/, '$1');
  const kind = /^projects\/[^/]+(?:\/([a-z]+)\/[^/]+)?$/.exec(resource);
  const resourceType = kind ? (kind[1] === undefined ? PROJECT_TYPE : TYPES[kind[1]]) : undefined;
  return { permission, resource, ...(resourceType !== undefined ? { resourceType } : {}) };
}

/** `permission` on the project a resource's name is in (creating it, listing its kind). */
function onProjectOf(permission: string, name: unknown): CheckRequest {
  const project = /^projects\/[^/]+/.exec(text(name))?.[0];
  return on(permission, project ?? name);
}

/** A topic naming a schema attaches it: `pubsub.schemas.attach` on the schema. */
function attachSchema(topic: Obj): CheckRequest[] {
  const schema = text(field(topic['schemaSettings'])['schema']);
  return schema === '' ? [] : [on('pubsub.schemas.attach', schema)];
}

/** What the permission checks of an RPC may look up: the topic a subscription is attached to. */
export interface Lookup {
  topicOf(subscription: string): string | undefined;
  /** The policy set on a topic, subscription or snapshot through setIamPolicy (iam.ts). */
  policyOf(resource: string): IamPolicy | undefined;
}

type Need = (request: Obj, look: Lookup) => CheckRequest[];

const onTopic =
  (permission: string): Need =>
  (r) => [on(permission, r['topic'])];
const onSubscription =
  (permission: string): Need =>
  (r) => [on(permission, r['subscription'])];
const onSnapshot =
  (permission: string): Need =>
  (r) => [on(permission, r['snapshot'])];
const onSchema =
  (permission: string): Need =>
  (r) => [on(permission, r['name'])];
const onProject =
  (permission: string, key: string): Need =>
  (r) => [on(permission, r[key])];
const nothing: Need = () => [];

/**
 * Every RPC the emulator serves (gRPC method names), and what it needs. The IAM policy methods
 * check nothing; testIamPermissions answers what is held. A policy set on a topic, subscription
 * or snapshot through setIamPolicy grants with the access file's (iam.ts).
 */
export const NEEDS: Readonly<Record<string, Need>> = {
  // google.pubsub.v1.Publisher
  CreateTopic: (r) => [onProjectOf('pubsub.topics.create', r['name']), ...attachSchema(r)],
  UpdateTopic: (r) => {
    const t = field(r['topic']);
    return [on('pubsub.topics.update', t['name']), ...attachSchema(t)];
  },
  Publish: onTopic('pubsub.topics.publish'),
  GetTopic: onTopic('pubsub.topics.get'),
  ListTopics: onProject('pubsub.topics.list', 'project'),
  ListTopicSubscriptions: onTopic('pubsub.topics.get'),
  ListTopicSnapshots: onTopic('pubsub.topics.get'),
  DeleteTopic: onTopic('pubsub.topics.delete'),
  // On the subscription's topic; an unknown subscription is checked as itself (it has no topic).
  DetachSubscription: (r, look) => {
    const sub = text(r['subscription']);
    return [on('pubsub.topics.detachSubscription', look.topicOf(sub) ?? sub)];
  },
  // google.pubsub.v1.Subscriber. A dead-letter topic is the service agent's to publish to:
  // Pub/Sub checks the agent's grant there, not the caller's.
  CreateSubscription: (r) => [
    onProjectOf('pubsub.subscriptions.create', r['name']),
    on('pubsub.topics.attachSubscription', r['topic']),
  ],
  GetSubscription: onSubscription('pubsub.subscriptions.get'),
  UpdateSubscription: (r) => [on('pubsub.subscriptions.update', field(r['subscription'])['name'])],
  ListSubscriptions: onProject('pubsub.subscriptions.list', 'project'),
  DeleteSubscription: onSubscription('pubsub.subscriptions.delete'),
  ModifyAckDeadline: onSubscription('pubsub.subscriptions.consume'),
  Acknowledge: onSubscription('pubsub.subscriptions.consume'),
  Pull: onSubscription('pubsub.subscriptions.consume'),
  StreamingPull: onSubscription('pubsub.subscriptions.consume'),
  ModifyPushConfig: onSubscription('pubsub.subscriptions.update'),
  CreateSnapshot: (r) => [
    onProjectOf('pubsub.snapshots.create', r['name']),
    on('pubsub.subscriptions.consume', r['subscription']),
  ],
  GetSnapshot: onSnapshot('pubsub.snapshots.get'),
  ListSnapshots: onProject('pubsub.snapshots.list', 'project'),
  UpdateSnapshot: (r) => [on('pubsub.snapshots.update', field(r['snapshot'])['name'])],
  DeleteSnapshot: onSnapshot('pubsub.snapshots.delete'),
  Seek: (r) => {
    const snapshot = text(r['snapshot']);
    return [
      on('pubsub.subscriptions.consume', r['subscription']),
      ...(snapshot === '' ? [] : [on('pubsub.snapshots.seek', snapshot)]),
    ];
  },
  // google.pubsub.v1.SchemaService (a revision is deleted with the schema's delete permission)
  CreateSchema: onProject('pubsub.schemas.create', 'parent'),
  GetSchema: onSchema('pubsub.schemas.get'),
  ListSchemas: onProject('pubsub.schemas.list', 'parent'),
  ListSchemaRevisions: onSchema('pubsub.schemas.listRevisions'),
  CommitSchema: onSchema('pubsub.schemas.commit'),
  RollbackSchema: onSchema('pubsub.schemas.rollback'),
  DeleteSchemaRevision: onSchema('pubsub.schemas.delete'),
  DeleteSchema: onSchema('pubsub.schemas.delete'),
  ValidateSchema: onProject('pubsub.schemas.validate', 'parent'),
  ValidateMessage: onProject('pubsub.schemas.validate', 'parent'),
  // google.iam.v1.IAMPolicy
  GetIamPolicy: nothing,
  SetIamPolicy: nothing,
  TestIamPermissions: nothing,
};

/** Pub/Sub's refusal: PERMISSION_DENIED with the ErrorInfo in REST `details` and gRPC's trailer. */
export function refusal(d: Denial): DetailedApiError {
  const message = `User not authorized to perform this action. ${denialSuffix(d)}`;
  const info = denialInfo(DOMAIN, d);
  const metadata = new grpc.Metadata();
  metadata.set(
    'grpc-status-details-bin',
    statusWithErrorInfo(
      7,
      message,
      'IAM_PERMISSION_DENIED',
      DOMAIN,
      new Map(Object.entries(info['metadata'] as Record<string, string>)),
    ),
  );
  return new DetailedApiError('PERMISSION_DENIED', message, metadata, [info]);
}

/** The access file's policies, the identity ports, and the checks both surfaces make with them. */
export class PubSubAccess {
  private readonly enforcement: Enforcement;
  private readonly look: Lookup;
  /** Set once the identity ports listen (before the emulator answers anything). */
  identities: IdentityListeners | undefined;

  constructor(enforcement: Enforcement, look: Lookup) {
    this.enforcement = enforcement;
    this.look = look;
  }

  private caller(authorization: unknown, bound: string | undefined): Caller {
    const caller = this.enforcement.callerOf(
      typeof authorization === 'string' ? authorization : undefined,
      bound,
    );
    if (caller === undefined) throw new ApiError('UNAUTHENTICATED', UNAUTHENTICATED_MESSAGE);
    return caller;
  }

  /** The caller of a gRPC call; a token that does not verify is UNAUTHENTICATED. */
  callerOfCall(call: { metadata: grpc.Metadata }): Caller {
    return this.caller(call.metadata.get('authorization')[0], this.identities?.memberOfCall(call));
  }

  /** The caller of a REST request; a token that does not verify is HTTP 401. */
  callerOfRequest(req: IncomingMessage): Caller {
    return this.caller(req.headers.authorization, this.identities?.memberOfSocket(req.socket));
  }

  /** Refuses (PERMISSION_DENIED) the first permission of `rpc` the caller does not hold. */
  authorize(caller: Caller, rpc: string, request: Obj): void {
    const need = NEEDS[rpc];
    if (need === undefined) throw new Error(`no IAM permission is mapped for ${rpc}`);
    for (const check of need(request, this.look)) {
      const d = this.enforcement.check(caller, check, this.own(check.resource));
      if (d) throw refusal(d);
    }
  }

  /** testIamPermissions: the permissions asked about that the caller holds on `resource`. */
  held(caller: Caller, resource: string, permissions: readonly string[]): string[] {
    const own = this.own(resource);
    return permissions.filter((p) => this.enforcement.check(caller, on(p, resource), own) === undefined);
  }

  /** The policy set on `resource` through the API, granting with the access file's. */
  private own(resource: string): IamPolicy[] {
    const p = this.look.policyOf(resource);
    return p ? [p] : [];
  }
}

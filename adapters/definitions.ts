/**
 * The registry's event definitions for the gateway and `store` (docs/definitions.md): the
 * current ones from a RegistryReader's copy (refreshed in the background, the last good copy on
 * errors, RegistryUnavailable with no copy at all), plus, for `store`, the exact versions the
 * gateway stamped (immutable objects, read once per process).
 *
 * On the hot path it answers without a promise when the reader's copy is the one it built its
 * definitions from and holds what is asked.
 */
import {
  type DefinedEvent,
  type DefinedEvents,
  type DefinitionSpec,
  definedEvent,
  definedEvents,
  parseStamp,
} from '../core/definitions/defined-events.ts';
import { andThen, isPending } from '../core/maybe-async.ts';
import type { TranslatorSpec } from '../schemas/translator.ts';
import { loadOnce, warmInBackground } from './load-once.ts';
import type { ReaderOptions, RegistryClient, RegistryReader, Snapshot } from './registry.ts';

export class Definitions {
  private readonly reader: RegistryReader;
  private readonly client: RegistryClient;
  private held: { snapshot: Snapshot; events: DefinedEvents } | undefined;
  private readonly older = new Map<string, DefinedEvent>();
  /** Stamps that name no version (looked up once, not on every message that carries them). */
  private readonly missing = new Set<string>();
  /** When the last read for a name the copy did not know was made (one a second at most). */
  private lastFreshAt = Number.NEGATIVE_INFINITY;

  constructor(reader: RegistryReader, client: RegistryClient) {
    this.reader = reader;
    this.client = client;
  }

  /**
   * The defined events now, and the stamped version when one is given (`name@major.minor`).
   * Rejects with RegistryUnavailable when no copy of the registry could be read (quickly: the
   * reader waits for a first read at most briefly).
   */
  get(given?: string): DefinedEvents | Promise<DefinedEvents> {
    // Anything but a well-formed stamp is ignored: the current definition applies.
    const stamp = given !== undefined && parseStamp(given) ? given : undefined;
    const held = this.held;
    // The reader's copy, at once (an old one starts a refresh in the background).
    const copy = this.reader.cached('EventDefinition');
    if (
      held &&
      copy?.resources === held.snapshot.resources &&
      (stamp === undefined || held.events.exact(stamp) || this.missing.has(stamp))
    )
      return held.events;
    return this.load(stamp);
  }

  /**
   * The definitions read now from Cloud Storage, for a custom event name the copy does not know:
   * a definition applied a moment ago is used at once rather than after the copy's next
   * background refresh. At most one such read a second per process (a steady stream of custom
   * events that have no definition costs one conditional read a second), and at most `waitMs`
   * of waiting; undefined when no read was made, or it failed or took too long (the copy stands).
   */
  async afresh(waitMs = 1000): Promise<DefinedEvents | undefined> {
    const now = performance.now();
    if (now - this.lastFreshAt < 1000) return undefined;
    this.lastFreshAt = now;
    let timer: NodeJS.Timeout | undefined;
    try {
      const read = this.reader.fresh('EventDefinition').then(() => this.load(undefined));
      return await Promise.race([
        read,
        new Promise<undefined>((resolve) => {
          timer = setTimeout(() => resolve(undefined), waitMs);
        }),
      ]);
    } catch {
      return undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  /** One version (immutable), read once per process. */
  private async version(name: string, version: string): Promise<DefinedEvent> {
    const stamp = `${name}@${version}`;
    const held = this.older.get(stamp);
    if (held) return held;
    const v = await this.client.readVersion('EventDefinition', name, version);
    const d = definedEvent(v.name, v.version, v.spec as unknown as DefinitionSpec);
    this.older.set(stamp, d);
    return d;
  }

  /** A version this process already holds (what `get` loaded), without any read. */
  peek(stamp: string): DefinedEvent | undefined {
    return this.held?.events.exact(stamp) ?? this.older.get(stamp);
  }

  private async load(stamp: string | undefined): Promise<DefinedEvents> {
    const snapshot = await this.reader.current('EventDefinition');
    const wanted = stamp === undefined ? undefined : parseStamp(stamp);
    let added = false;
    const key = stamp as string;
    if (wanted && snapshot.resources.get(wanted.name)?.version !== wanted.version) {
      if (!this.older.has(key) && !this.missing.has(key)) {
        const v = await this.client
          .readVersion('EventDefinition', wanted.name, wanted.version)
          .catch((err: unknown) => {
            // A stamp naming no version (a native publish may carry any attribute): the current
            // definition applies. Any other error is the registry failing: the caller retries.
            if ((err as { code?: unknown }).code === 404) return undefined;
            throw err;
          });
        if (v) {
          this.older.set(key, definedEvent(v.name, v.version, v.spec as unknown as DefinitionSpec));
          added = true;
        } else this.missing.add(key);
      }
    }
    if (!added && this.held?.snapshot.resources === snapshot.resources) {
      this.held = { snapshot, events: this.held.events };
      return this.held.events;
    }
    const current = await Promise.all(
      [...snapshot.resources.values()].map(async (r) => {
        const spec = r.spec as unknown as DefinitionSpec;
        const previous =
          spec.accept_previous_major_until && r.previous_major
            ? await this.version(r.name, r.previous_major)
            : undefined;
        return definedEvent(r.name, r.version, spec, {
          created: r.created,
          ...(previous ? { previous } : {}),
        });
      }),
    );
    const events = definedEvents(current, [...this.older.values()]);
    this.held = { snapshot, events };
    return events;
  }
}

/** A translator as the registry holds it. */
export interface TranslatorEntry {
  readonly name: string;
  readonly version: string;
  readonly spec: TranslatorSpec;
}

/**
 * With no copy of the registry yet (a cold start), how long a request waits for the first read
 * before it is answered 503: within a request's budget (the gateway cuts a body after 10 s), so a
 * registry that is readable but slow to answer (seconds under load) is waited for, never a 503;
 * one that cannot be read fails its read at once and is told as unavailable.
 */
export const REGISTRY_COLD_WAIT_MS = 8_000;

/** The reader options of registryReaders: the cold wait above, and `maxAgeMs` when given. */
export function registryReaderOptions(opts: { readonly maxAgeMs?: number }): ReaderOptions {
  // Every resource is re-read once its copy is this old (docs/registry.md#reading).
  return {
    coldWaitMs: REGISTRY_COLD_WAIT_MS,
    ...(opts.maxAgeMs === undefined ? {} : { maxAgeMs: opts.maxAgeMs }),
  };
}

/**
 * The event definitions and translators of the registry bucket `bucketName`, with Google's Cloud
 * Storage client loaded on first use (in the background at cold start), so a process that never
 * sees a custom event does not wait for it.
 */
export function registryReaders(
  project: string,
  bucketName: string,
  opts: { readonly maxAgeMs?: number } = {},
): {
  definitions: {
    get(stamp?: string): DefinedEvents | Promise<DefinedEvents>;
    peek(stamp: string): DefinedEvent | undefined;
    afresh(waitMs?: number): Promise<DefinedEvents | undefined>;
  };
  translators: { get(name: string): Promise<TranslatorEntry | undefined> };
} {
  const readerOptions = registryReaderOptions(opts);
  const loaded = loadOnce(async () => {
    const [{ Storage }, { RegistryClient, RegistryReader }] = await Promise.all([
      import('@google-cloud/storage'),
      import('./registry.ts'),
    ]);
    const client = new RegistryClient(new Storage({ projectId: project }).bucket(bucketName));
    const reader = new RegistryReader(client, readerOptions);
    // The first reads start now, at cold start, not with the first request that needs them.
    reader.cached('EventDefinition');
    reader.cached('Translator');
    // One lookup per process: its one-read-a-second limit for unknown names lives in it.
    return { reader, definitions: new Definitions(reader, client), translators: translatorLookup(reader) };
  });
  warmInBackground(loaded);
  const ready = async () => loaded();
  return {
    definitions: {
      get: (stamp) => andThen(loaded(), (r) => r.definitions.get(stamp)),
      peek: (stamp) => {
        const d = loaded();
        return isPending(d) ? undefined : d.definitions.peek(stamp);
      },
      afresh: async (waitMs) => (await ready()).definitions.afresh(waitMs),
    },
    translators: { get: async (name) => (await ready()).translators.get(name) },
  };
}

/**
 * How long a translator's request waits for the refresh its copy is due for (counted from when
 * the refresh started), before it is answered from the copy held. A conditional read of the index
 * takes tens of milliseconds; this bounds a slow or failing Cloud Storage.
 */
export const TRANSLATOR_REFRESH_WAIT_MS = 1000;

/**
 * The current version of a translator, from a reader's copy of the registry no older than the
 * reader's `maxAgeMs`: a request that finds the copy due waits for its refresh (at most
 * TRANSLATOR_REFRESH_WAIT_MS), so an edit is served from the first request after that age.
 */
export function translatorLookup(reader: RegistryReader): {
  get(name: string): Promise<TranslatorEntry | undefined>;
} {
  // A name the copy does not know is read again from Cloud Storage (a translator applied a moment
  // ago answers at once, not after the copy's next refresh), at most once a second.
  let lastFreshAt = Number.NEGATIVE_INFINITY;
  return {
    get: async (name) => {
      let r = (await reader.recent('Translator', TRANSLATOR_REFRESH_WAIT_MS)).resources.get(name);
      if (!r && performance.now() - lastFreshAt >= 1000) {
        lastFreshAt = performance.now();
        r = (await reader.fresh('Translator')).resources.get(name);
      }
      return r ? { name: r.name, version: r.version, spec: r.spec as unknown as TranslatorSpec } : undefined;
    },
  };
}

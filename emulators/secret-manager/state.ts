/**
 * The emulator's state: secrets (labels, replication, their own IAM policy) and their versions
 * (state, payload until destroyed), each change one JSON record in the append-only log, so an
 * answered change survives `kill -9` (emulators/common/json-log.ts). Keys are full names with the
 * project's number: `projects/<number>/secrets/<id>`.
 */
import { join } from 'node:path';
import type { FsyncPolicy } from '@eventbus/emulator-common/append-log.ts';
import type { IamBinding } from '@eventbus/emulator-common/iam-policy.ts';
import { JsonLog } from '@eventbus/emulator-common/json-log.ts';

export type VersionState = 'ENABLED' | 'DISABLED' | 'DESTROYED';

export interface StoredVersion {
  readonly number: number;
  readonly state: VersionState;
  readonly createTime: string;
  readonly destroyTime?: string;
  /** The payload, base64; gone once destroyed. */
  readonly data?: string;
  /** CRC32C of the payload, as a decimal string. */
  readonly crc32c?: string;
  readonly clientSpecifiedPayloadChecksum: boolean;
  readonly etag: string;
}

export interface StoredPolicy {
  readonly version: number;
  readonly bindings: readonly IamBinding[];
  readonly etag: string;
}

export interface StoredSecret {
  readonly name: string;
  readonly createTime: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly replication: unknown;
  readonly etag: string;
  readonly policy?: StoredPolicy;
}

type LogRecord =
  | { readonly t: 'secret'; readonly secret: StoredSecret }
  | { readonly t: 'version'; readonly secret: string; readonly version: StoredVersion }
  | { readonly t: 'delete'; readonly secret: string };

export class SecretState {
  readonly secrets = new Map<string, StoredSecret>();
  /** Secret name → its versions, index = number - 1 (numbers are never reused). */
  readonly versions = new Map<string, StoredVersion[]>();
  private log!: JsonLog<LogRecord>;
  private lastEtag = 0n;

  static async open(dataDir: string, policy: FsyncPolicy): Promise<SecretState> {
    const s = new SecretState();
    s.log = await JsonLog.open<LogRecord>(join(dataDir, 'secret-manager.log'), policy, s);
    return s;
  }

  apply(rec: LogRecord): void {
    if (rec.t === 'secret') {
      this.secrets.set(rec.secret.name, rec.secret);
      if (!this.versions.has(rec.secret.name)) this.versions.set(rec.secret.name, []);
    } else if (rec.t === 'version') {
      const list = this.versions.get(rec.secret) ?? [];
      list[rec.version.number - 1] = rec.version;
      this.versions.set(rec.secret, list);
    } else {
      this.secrets.delete(rec.secret);
      this.versions.delete(rec.secret);
    }
  }

  snapshot(): LogRecord[] {
    const out: LogRecord[] = [];
    for (const secret of this.secrets.values()) {
      out.push({ t: 'secret', secret });
      for (const version of this.versions.get(secret.name) ?? [])
        out.push({ t: 'version', secret: secret.name, version });
    }
    return out;
  }

  /** A fresh etag: the time in microseconds, never repeated, quoted as Google's etags are. */
  etag(): string {
    const now = BigInt(Date.now()) * 1000n;
    this.lastEtag = now > this.lastEtag ? now : this.lastEtag + 1n;
    return `"${this.lastEtag.toString(16)}"`;
  }

  putSecret(secret: StoredSecret): Promise<void> {
    return this.log.commit({ t: 'secret', secret });
  }

  putVersion(secret: string, version: StoredVersion): Promise<void> {
    return this.log.commit({ t: 'version', secret, version });
  }

  deleteSecret(secret: string): Promise<void> {
    return this.log.commit({ t: 'delete', secret });
  }

  close(): Promise<void> {
    return this.log.close();
  }
}

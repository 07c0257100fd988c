/**
 * The two gRPC services, from the protos shipped in @google-cloud/bigtable-api (read, never
 * copied) and the common Google protos of its google-gax. That package is the generated API layer
 * @google-cloud/bigtable itself depends on: the same protos, without the client's own
 * dependencies (OpenTelemetry, Cloud Monitoring, googleapis), so the emulator needs only it.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

function protoDirs(): string[] {
  const require = createRequire(import.meta.url);
  const main = require.resolve('@google-cloud/bigtable-api');
  const root = join(dirname(main), '..', '..');
  const gax = createRequire(main).resolve('google-gax');
  return [join(root, 'build', 'protos'), join(dirname(gax), '..', 'protos')];
}

export interface Services {
  readonly data: grpc.ServiceDefinition;
  readonly tableAdmin: grpc.ServiceDefinition;
}

let cached: Services | undefined;

export function loadServices(): Services {
  if (cached) return cached;
  const def = protoLoader.loadSync(
    ['google/bigtable/v2/bigtable.proto', 'google/bigtable/admin/v2/bigtable_table_admin.proto'],
    { includeDirs: protoDirs(), longs: String, enums: String, defaults: false, oneofs: true },
  );
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    google: {
      bigtable: {
        v2: Record<string, { service: grpc.ServiceDefinition }>;
        admin: { v2: Record<string, { service: grpc.ServiceDefinition }> };
      };
    };
  };
  cached = {
    data: (pkg.google.bigtable.v2['Bigtable'] as { service: grpc.ServiceDefinition }).service,
    tableAdmin: (pkg.google.bigtable.admin.v2['BigtableTableAdmin'] as { service: grpc.ServiceDefinition })
      .service,
  };
  return cached;
}

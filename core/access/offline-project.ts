/**
 * The project number the program is declared with offline (infra/offline.ts's getProject mock).
 * In core (no Pulumi, no I/O) because the local environment gives the Secret Manager emulator
 * the same number for the local project (local/services.ts): the IAM conditions the offline
 * program writes with it then match there as they would in the cloud.
 */
export const PROJECT_NUMBER = '123456789012';

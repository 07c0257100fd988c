/**
 * A create-only upload (`ifGenerationMatch=0`): the object is written only if no live object of
 * that name exists, and `exists` says one did. What Google documents:
 *
 * - `ifGenerationMatch=0` "makes the operation succeed only if there are no live versions of the
 *   object" (cloud.google.com/storage/docs/json_api/v1/objects/insert), and a precondition that
 *   does not match fails the request "with a 412 Precondition Failed response"
 *   (cloud.google.com/storage/docs/request-preconditions);
 * - replacing an existing object needs `storage.objects.delete` besides `storage.objects.create`
 *   (cloud.google.com/storage/docs/access-control/iam-permissions).
 *
 * Which of the two a writer holding only `storage.objects.create` (Storage Object Creator) gets
 * when the object exists — the precondition's 412 or the missing delete's 403 — is not documented.
 * So both mean `exists` here: a 403 is read as the object's existence only when the caller does
 * hold `storage.objects.create` on the bucket (testIamPermissions, which any caller may ask
 * about itself); otherwise it is the refusal it says.
 */

/** The part of a Cloud Storage bucket handle a create-only write uses. */
export interface CreateOnlyBucket {
  file(name: string): {
    save(
      body: string,
      options: {
        resumable: false;
        contentType: string;
        preconditionOpts: { ifGenerationMatch: number };
      },
    ): Promise<unknown>;
  };
  readonly iam: { testPermissions(permissions: string[]): Promise<[Record<string, boolean>, ...unknown[]]> };
}

const CREATE = 'storage.objects.create';

export async function createOnly(
  bucket: CreateOnlyBucket,
  path: string,
  body: string,
  contentType: string,
): Promise<'created' | 'exists'> {
  try {
    await bucket
      .file(path)
      .save(body, { resumable: false, contentType, preconditionOpts: { ifGenerationMatch: 0 } });
    return 'created';
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 412) return 'exists';
    if (code === 403) {
      const [held] = await bucket.iam.testPermissions([CREATE]);
      if (held[CREATE] === true) return 'exists';
    }
    throw err;
  }
}

import { useState, type FormEvent } from "react";
import type { z } from "zod";
import type * as AuthSchemas from "#common/auth-schema.ts";
import type { FieldErrors } from "#common/auth-schema.ts";

type Schemas = typeof AuthSchemas;
/** The name of one of the forms' schemas in `#common/auth-schema.ts`. */
export type FormSchema = { [K in keyof Schemas]: Schemas[K] extends z.ZodType ? K : never }[keyof Schemas];

let schemas: Schemas | undefined;
let loading: Promise<Schemas> | undefined;

// The schemas bring zod, larger than the rest of a sign-in page's own scripts, and are only needed once the form
// is sent: they load when the person first focuses or types in it, not with the page.
function loadSchemas() {
  loading ??= import("#common/auth-schema.ts").then(
    (mod) => (schemas = mod),
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

/**
 * Field errors for a form: checked in the browser with the same schema the action uses, so most mistakes never
 * leave the page; a new answer from the server replaces them. Spread `handlers` on the form. A form sent before
 * its schema arrived goes to the server, which answers with the same messages.
 */
export function useFormErrors(schema: FormSchema, serverErrors: FieldErrors | undefined) {
  const [local, setLocal] = useState<{ after: FieldErrors | undefined; errors: FieldErrors } | null>(null);
  const errors = local && local.after === serverErrors ? local.errors : (serverErrors ?? {});
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    if (!schemas) return;
    const values = Object.fromEntries(new FormData(event.currentTarget));
    const result = schemas[schema].safeParse(values);
    if (!result.success) {
      event.preventDefault();
      setLocal({ after: serverErrors, errors: schemas.fieldErrors(result.error) });
    } else {
      setLocal({ after: serverErrors, errors: {} });
    }
  };
  const prepare = () => void loadSchemas().catch(() => undefined);
  return { errors, handlers: { onSubmit, onFocus: prepare, onInput: prepare } };
}

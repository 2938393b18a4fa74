import { useState, type FormEvent } from "react";
import type { z } from "zod";
import { fieldErrors, type FieldErrors } from "#common/auth-schema.ts";

/**
 * Field errors for a form: checked in the browser with the same schema the action uses, so most mistakes never
 * leave the page; a new answer from the server replaces them.
 */
export function useFormErrors(schema: z.ZodType, serverErrors: FieldErrors | undefined) {
  const [local, setLocal] = useState<{ after: FieldErrors | undefined; errors: FieldErrors } | null>(null);
  const errors = local && local.after === serverErrors ? local.errors : (serverErrors ?? {});
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const values = Object.fromEntries(new FormData(event.currentTarget));
    const result = schema.safeParse(values);
    if (!result.success) {
      event.preventDefault();
      setLocal({ after: serverErrors, errors: fieldErrors(result.error) });
    } else {
      setLocal({ after: serverErrors, errors: {} });
    }
  };
  return { errors, onSubmit };
}

import type { ServerState } from "#server/http/state.ts";
import { getBalance } from "#server/modules/credits/ledger.ts";
import { listEntries } from "#server/modules/credits/list-entries.ts";
import { expiringCredits } from "#server/modules/credits/expire-credits.ts";
import { apiKey } from "./authenticate.ts";
import { apiApp } from "./env.ts";
import { presentEntry } from "./present.ts";
import { routes } from "./routes.ts";
import type { ApiLimits } from "#server/modules/api-keys/verify-api-key.ts";

/** `/credits` and `/credits/ledger`: the balance and its movements. */
export function creditsApi(state: ServerState, options: { limits: ApiLimits }) {
  const key = apiKey(state, options);
  return apiApp()
    .openapi({ ...routes.balance, middleware: key }, async (c) => {
      const db = c.var.runtime.database.db;
      const [b, expiring] = await Promise.all([
        getBalance({ db, userId: c.var.apiUserId }),
        expiringCredits({ db, userId: c.var.apiUserId }),
      ]);
      return c.json(
        {
          object: "balance" as const,
          balance: b.balance,
          held: b.held,
          available: b.available,
          expiring: expiring.map((e) => ({ credits: e.credits, expires_at: e.expiresAt!.toISOString() })),
        },
        200,
      );
    })
    .openapi({ ...routes.ledger, middleware: key }, async (c) => {
      const q = c.req.valid("query");
      const { rows, total } = await listEntries({
        db: c.var.runtime.database.db,
        userId: c.var.apiUserId,
        page: q.page,
        pageSize: q.page_size,
      });
      return c.json(
        { object: "list" as const, data: rows.map(presentEntry), page: q.page, page_size: q.page_size, total },
        200,
      );
    });
}

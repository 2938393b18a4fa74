import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "#server/db/client.ts";
import type { PgBoss } from "#server/jobs/boss.ts";
import type { Storage } from "#server/storage/storage.ts";
import { contentReport, generation, user } from "#server/db/schema/index.ts";
import { AppError } from "#server/errors.ts";
import { recordAdminAction, type AdminActor } from "#server/modules/audit/record-admin-action.ts";
import type { Tx } from "#server/modules/credits/ledger.ts";
import { deleteGenerationRows } from "#server/modules/generation/delete-generation.ts";
import { hideLockedGeneration, lockGeneration } from "#server/modules/generation/moderate-generation.ts";
import { removeFiles } from "#server/modules/generation/store-outputs.ts";
import { queueMail } from "#server/modules/mail/queue-mail.ts";
import type { MailKind } from "#server/modules/mail/templates.ts";
import { setBan } from "#server/modules/users/set-ban.ts";
import { DEFAULT_LOCALE, isLocale, localizedUrl } from "#common/locales.ts";
import { toolPath } from "#common/tools.ts";
import type { ReviewDecision } from "./schema.ts";

/** What each decision tells the owner. */
const MAILS: Record<ReviewDecision, MailKind> = {
  clear: "review.cleared",
  hide: "review.hidden",
  delete: "review.deleted",
  ban: "review.banned",
};

/** How the reports a decision settles are marked. */
const RESOLUTIONS: Record<ReviewDecision, string> = {
  clear: "cleared",
  hide: "hidden",
  delete: "deleted",
  ban: "banned",
};

export interface ReviewOutcome {
  decision: ReviewDecision;
  /** The open reports the decision settled. */
  reports: number;
  /** Made public again (clear, when its owner had asked for it public). */
  published: boolean;
}

async function resolveReports(tx: Tx, generationId: string, decision: ReviewDecision): Promise<number> {
  const rows = await tx
    .update(contentReport)
    .set({ resolvedAt: sql`now()`, resolution: RESOLUTIONS[decision] })
    .where(and(eq(contentReport.generationId, generationId), isNull(contentReport.resolvedAt)))
    .returning({ id: contentReport.id });
  return rows.length;
}

/**
 * An administrator's decision about a generation in the review queue, with its reason, in one transaction with its
 * audit log entries, settling the generation's open reports:
 * - `clear`: nothing wrong; the review ends (`cleared`) and, when its owner had asked for it public, it is public
 *   again (unless hidden);
 * - `hide`: private from now on, and its owner cannot publish it (as the generation page's hide);
 * - `delete`: the generation goes with its files (its rows, then its stored files once committed): a generation
 *   without its files would only be a broken entry in its owner's gallery, and the audit log keeps what it was;
 * - `ban`: its owner's account is suspended (their sessions end) and the generation hidden.
 * A decision with nothing left to do (cleared twice, hidden twice, a second submit) is a `conflict`, never done
 * twice. The owner is then told by e-mail, in their language.
 */
export async function reviewGeneration(options: {
  db: Db;
  storage: Storage;
  boss: PgBoss;
  siteUrl: string;
  id: string;
  decision: ReviewDecision;
  reason: string;
  actor: AdminActor;
}): Promise<ReviewOutcome> {
  const { db, id, decision, reason, actor } = options;
  const { outcome, owner, files, place } = await db.transaction(async (tx) => {
    const row = await lockGeneration(tx, id);
    const [state] = await tx
      .select({
        review: generation.review,
        safety: generation.safety,
        tool: generation.tool,
        kind: generation.kind,
        prompt: generation.prompt,
        modelId: generation.modelId,
        banned: user.banned,
      })
      .from(generation)
      .innerJoin(user, eq(user.id, generation.userId))
      .where(eq(generation.id, row.id));
    if (!state) throw new AppError("not_found", `no generation ${id}`);
    const [open] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(contentReport)
      .where(and(eq(contentReport.generationId, row.id), isNull(contentReport.resolvedAt)));
    const pending = state.review === "flagged" || (open?.count ?? 0) > 0;
    const owner = { email: row.email, name: row.name, locale: row.locale };
    const result = { decision, reports: 0, published: false };
    let files: string[] = [];

    if (decision === "clear") {
      if (!pending) throw new AppError("conflict", "nothing to review");
      const publish = Boolean(state.safety?.wantedPublic) && !row.hiddenAt;
      await tx
        .update(generation)
        .set({
          review: "cleared",
          reviewedAt: sql`now()`,
          updatedAt: sql`now()`,
          ...(publish ? { visibility: "public" as const } : {}),
        })
        .where(eq(generation.id, row.id));
      result.reports = await resolveReports(tx, row.id, decision);
      result.published = publish;
      await recordAdminAction(tx, actor, {
        action: "generations.clear",
        targetType: "generation",
        targetId: row.id,
        targetLabel: row.email,
        before: { review: state.review ?? null, visibility: row.visibility, reports: result.reports },
        after: { review: "cleared", visibility: publish ? "public" : row.visibility },
        reason,
      });
    } else if (decision === "hide") {
      if (row.hiddenAt) throw new AppError("conflict", "already hidden");
      result.reports = await resolveReports(tx, row.id, decision);
      await hideLockedGeneration(tx, row, { reason, actor, after: { reports: result.reports } });
    } else if (decision === "delete") {
      result.reports = await resolveReports(tx, row.id, decision);
      files = await deleteGenerationRows(tx, { userId: row.userId, id: row.id });
      await recordAdminAction(tx, actor, {
        action: "generations.delete",
        targetType: "generation",
        targetId: row.id,
        targetLabel: row.email,
        before: {
          prompt: state.prompt,
          model: state.modelId,
          visibility: row.visibility,
          review: state.review ?? null,
          reports: result.reports,
        },
        after: { deleted: true, files: files.length },
        reason,
      });
    } else {
      if (row.userId === actor.id) throw new AppError("conflict", "an administrator cannot suspend themselves");
      if (state.banned && row.hiddenAt) throw new AppError("conflict", "already suspended and hidden");
      // Its own transaction nests as a savepoint of this one: the suspension, the hiding and their entries together.
      if (!state.banned) await setBan({ db: tx, account: { id: row.userId }, banned: true, reason, actor });
      result.reports = await resolveReports(tx, row.id, decision);
      if (!row.hiddenAt) await hideLockedGeneration(tx, row, { reason, actor, after: { reports: result.reports } });
    }
    // Where the message points: the result itself, the owner's gallery once it is gone, the terms for a suspension.
    const place = {
      clear: `${toolPath(state.tool)}/${row.id}`,
      hide: `${toolPath(state.tool)}/${row.id}`,
      delete: `/dashboard/${state.kind}`,
      ban: "/legal/terms",
    }[decision];
    return { outcome: result, owner, files, place };
  });
  await removeFiles(options.storage, files);

  const locale = isLocale(owner.locale) ? owner.locale : DEFAULT_LOCALE;
  await queueMail({
    boss: options.boss,
    mail: {
      to: owner.email,
      kind: MAILS[decision],
      locale,
      name: owner.name,
      url: localizedUrl(options.siteUrl, place, locale),
    },
  });
  return outcome;
}

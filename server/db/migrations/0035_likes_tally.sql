-- A result's likes move to a narrow row of their own (`like_tally`), counted from the likes themselves; the result
-- keeps only their doubling rank for the trending order, so a like rarely rewrites its row and indexes.
CREATE TABLE "like_tally" (
	"generation_id" uuid PRIMARY KEY NOT NULL,
	"likes" integer NOT NULL,
	CONSTRAINT "like_tally_likes" CHECK ("like_tally"."likes" >= 0)
) WITH (fillfactor = 70);
--> statement-breakpoint
ALTER TABLE "like_tally" ADD CONSTRAINT "like_tally_generation_id_generation_id_fk" FOREIGN KEY ("generation_id") REFERENCES "public"."generation"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "like_tally" ("generation_id", "likes") SELECT "generation_id", count(*) FROM "generation_like" GROUP BY "generation_id";--> statement-breakpoint
-- The whole part of log2 of the likes (0 for none or one), in integers: the bits of the count less one.
CREATE FUNCTION atelier_like_rank(likes integer) RETURNS smallint
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT (length(ltrim(greatest(likes, 1)::bit(32)::text, '0')) - 1)::smallint
$$;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "like_rank" smallint DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE "generation" SET "like_rank" = atelier_like_rank(t."likes") FROM "like_tally" t WHERE t."generation_id" = "generation"."id" AND t."likes" > 1;--> statement-breakpoint
ALTER TABLE "generation" DROP COLUMN "hot";--> statement-breakpoint
ALTER TABLE "generation" DROP COLUMN "like_count";--> statement-breakpoint
DROP FUNCTION atelier_hot(integer, timestamptz);--> statement-breakpoint
-- Explore's trending order: the likes' doubling rank on a log10 scale plus the age (each doubling makes up for 3.8
-- hours, ten times the likes for 12.5 hours).
CREATE FUNCTION atelier_hot(like_rank smallint, created timestamptz) RETURNS double precision
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT like_rank * log(2::double precision) + extract(epoch FROM created)::double precision / 45000
$$;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "hot" double precision GENERATED ALWAYS AS (atelier_hot(like_rank, created_at)) STORED;--> statement-breakpoint
CREATE INDEX "generation_public_hot_idx" ON "generation" USING btree ("hot" DESC NULLS LAST,"id") WHERE "generation"."visibility" = 'public' and "generation"."status" = 'succeeded';--> statement-breakpoint
-- Searches no longer read through a pending list: entries go straight into the index.
DROP INDEX "generation_public_search_idx";--> statement-breakpoint
CREATE INDEX "generation_public_search_idx" ON "generation" USING gin ("search") WITH (fastupdate=false) WHERE "generation"."visibility" = 'public' and "generation"."status" = 'succeeded';

CREATE TABLE "redemption_batch" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"credits" bigint NOT NULL,
	"max_uses" integer NOT NULL,
	"code_count" integer NOT NULL,
	"expires_at" timestamp with time zone,
	"disabled_at" timestamp with time zone,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "redemption_code" ADD COLUMN "batch_id" uuid;--> statement-breakpoint
-- The codes created before batches had rows of their own: one batch per name they carried.
INSERT INTO "redemption_batch" ("name", "credits", "max_uses", "code_count", "expires_at", "created_by", "created_at")
SELECT "batch", max("credits"), max("max_uses"), count(*), max("expires_at"), min("created_by"), min("created_at")
FROM "redemption_code" GROUP BY "batch";--> statement-breakpoint
UPDATE "redemption_code" SET "batch_id" = b."id" FROM "redemption_batch" b WHERE b."name" = "redemption_code"."batch";--> statement-breakpoint
ALTER TABLE "redemption_code" ALTER COLUMN "batch_id" SET NOT NULL;--> statement-breakpoint
CREATE INDEX "redemption_batch_created_idx" ON "redemption_batch" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
ALTER TABLE "redemption_code" ADD CONSTRAINT "redemption_code_batch_id_redemption_batch_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."redemption_batch"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "redemption_code_batch_id_idx" ON "redemption_code" USING btree ("batch_id");
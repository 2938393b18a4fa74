CREATE TABLE "credit_lot" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"source" text NOT NULL,
	"reference" text,
	"amount" bigint NOT NULL,
	"remaining" bigint NOT NULL,
	"expires_at" timestamp with time zone,
	"rollover" bigint DEFAULT 0 NOT NULL,
	"period_seconds" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_lot_amounts" CHECK ("credit_lot"."amount" > 0 and "credit_lot"."remaining" between 0 and "credit_lot"."amount" and "credit_lot"."rollover" >= 0)
);
--> statement-breakpoint
ALTER TABLE "credit_entry" DROP CONSTRAINT "credit_entry_kind";--> statement-breakpoint
ALTER TABLE "redemption_batch" ADD COLUMN "credits_expire_days" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_lot" ADD CONSTRAINT "credit_lot_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_lot_user_open_idx" ON "credit_lot" USING btree ("user_id","expires_at") WHERE "credit_lot"."remaining" > 0;--> statement-breakpoint
CREATE INDEX "credit_lot_due_idx" ON "credit_lot" USING btree ("expires_at") WHERE "credit_lot"."remaining" > 0 and "credit_lot"."expires_at" is not null;--> statement-breakpoint
ALTER TABLE "credit_entry" ADD CONSTRAINT "credit_entry_kind" CHECK ("credit_entry"."kind" in ('signup_bonus', 'purchase', 'hold', 'capture', 'release', 'refund', 'admin_adjustment', 'redemption', 'chargeback', 'chargeback_reversal', 'subscription', 'expiry'));--> statement-breakpoint
-- The balances held before lots began: one lot each, never expiring.
INSERT INTO "credit_lot" ("user_id", "source", "amount", "remaining") SELECT "user_id", 'opening', "balance", "balance" FROM "credit_balance" WHERE "balance" > 0;

ALTER TABLE "credit_entry" DROP CONSTRAINT "credit_entry_kind";--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "dispute_id" text;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "dispute_status" text;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "dispute_credits" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "dispute_shortfall" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_entry" ADD CONSTRAINT "credit_entry_kind" CHECK ("credit_entry"."kind" in ('signup_bonus', 'purchase', 'hold', 'capture', 'release', 'refund', 'admin_adjustment', 'redemption', 'chargeback', 'chargeback_reversal'));--> statement-breakpoint
ALTER TABLE "credit_order" ADD CONSTRAINT "credit_order_dispute_status" CHECK ("credit_order"."dispute_status" in ('inquiry', 'open', 'won', 'lost'));--> statement-breakpoint
ALTER TABLE "credit_order" ADD CONSTRAINT "credit_order_dispute" CHECK ("credit_order"."dispute_shortfall" between 0 and "credit_order"."dispute_credits" and "credit_order"."dispute_credits" <= "credit_order"."credits_reversed" and "credit_order"."dispute_shortfall" <= "credit_order"."shortfall");--> statement-breakpoint
UPDATE "credit_order" SET "dispute_status" = 'open' WHERE "disputed_at" IS NOT NULL;

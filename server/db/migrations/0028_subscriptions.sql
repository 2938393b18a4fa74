CREATE TABLE "billing_customer" (
	"user_id" text PRIMARY KEY NOT NULL,
	"stripe_customer_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "billing_customer_stripe_customer_id_unique" UNIQUE("stripe_customer_id")
);
--> statement-breakpoint
CREATE TABLE "subscription" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text NOT NULL,
	"plan_id" text NOT NULL,
	"interval" text NOT NULL,
	"status" text NOT NULL,
	"stripe_subscription_id" text NOT NULL,
	"stripe_customer_id" text NOT NULL,
	"amount" integer NOT NULL,
	"currency" text NOT NULL,
	"current_period_start" timestamp with time zone NOT NULL,
	"current_period_end" timestamp with time zone NOT NULL,
	"cancel_at_period_end" boolean DEFAULT false NOT NULL,
	"next_plan_id" text,
	"trial_end" timestamp with time zone,
	"payment_issue" text,
	"grace_until" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"stripe_updated_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscription_stripe_subscription_id_unique" UNIQUE("stripe_subscription_id"),
	CONSTRAINT "subscription_interval" CHECK ("subscription"."interval" in ('monthly', 'yearly')),
	CONSTRAINT "subscription_status" CHECK ("subscription"."status" in ('incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'unpaid', 'canceled', 'paused')),
	CONSTRAINT "subscription_payment_issue" CHECK ("subscription"."payment_issue" in ('failed', 'action_required'))
);
--> statement-breakpoint
ALTER TABLE "credit_entry" DROP CONSTRAINT "credit_entry_kind";--> statement-breakpoint
ALTER TABLE "credit_order" DROP CONSTRAINT "credit_order_positive";--> statement-breakpoint
ALTER TABLE "credit_order" ALTER COLUMN "pack_id" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "kind" text DEFAULT 'pack' NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "plan_id" text;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "subscription_id" uuid;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "invoice_id" text;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "billing_reason" text;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "period_start" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "period_end" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "invoice_url" text;--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "invoice_pdf" text;--> statement-breakpoint
ALTER TABLE "plan" ADD COLUMN "stripe_product_id" text;--> statement-breakpoint
ALTER TABLE "billing_customer" ADD CONSTRAINT "billing_customer_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription" ADD CONSTRAINT "subscription_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscription" ADD CONSTRAINT "subscription_plan_id_plan_id_fk" FOREIGN KEY ("plan_id") REFERENCES "public"."plan"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "subscription_user_idx" ON "subscription" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "subscription_customer_idx" ON "subscription" USING btree ("stripe_customer_id");--> statement-breakpoint
ALTER TABLE "credit_order" ADD CONSTRAINT "credit_order_subscription_id_subscription_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscription"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_order_subscription_idx" ON "credit_order" USING btree ("subscription_id") WHERE "credit_order"."subscription_id" is not null;--> statement-breakpoint
ALTER TABLE "credit_order" ADD CONSTRAINT "credit_order_invoice_id_unique" UNIQUE("invoice_id");--> statement-breakpoint
ALTER TABLE "credit_entry" ADD CONSTRAINT "credit_entry_kind" CHECK ("credit_entry"."kind" in ('signup_bonus', 'purchase', 'hold', 'capture', 'release', 'refund', 'admin_adjustment', 'redemption', 'chargeback', 'chargeback_reversal', 'subscription'));--> statement-breakpoint
ALTER TABLE "credit_order" ADD CONSTRAINT "credit_order_kind" CHECK ("credit_order"."kind" in ('pack', 'subscription'));--> statement-breakpoint
ALTER TABLE "credit_order" ADD CONSTRAINT "credit_order_positive" CHECK ("credit_order"."credits" >= 0 and "credit_order"."amount" >= 0 and ("credit_order"."kind" = 'subscription' or ("credit_order"."credits" > 0 and "credit_order"."amount" > 0 and "credit_order"."pack_id" is not null)));
CREATE TABLE "credit_order" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text,
	"pack_id" text NOT NULL,
	"credits" bigint NOT NULL,
	"amount" bigint NOT NULL,
	"currency" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"provider" text DEFAULT 'stripe' NOT NULL,
	"provider_session_id" text,
	"checkout_url" text,
	"payment_intent_id" text,
	"receipt_url" text,
	"refunded_amount" bigint DEFAULT 0 NOT NULL,
	"credits_reversed" bigint DEFAULT 0 NOT NULL,
	"shortfall" bigint DEFAULT 0 NOT NULL,
	"disputed_at" timestamp with time zone,
	"request_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"paid_at" timestamp with time zone,
	CONSTRAINT "credit_order_provider_session_id_unique" UNIQUE("provider_session_id"),
	CONSTRAINT "credit_order_status" CHECK ("credit_order"."status" in ('pending', 'paid', 'canceled', 'refunded', 'failed')),
	CONSTRAINT "credit_order_positive" CHECK ("credit_order"."credits" > 0 and "credit_order"."amount" > 0),
	CONSTRAINT "credit_order_reversal" CHECK ("credit_order"."refunded_amount" >= 0 and "credit_order"."shortfall" >= 0 and "credit_order"."credits_reversed" between "credit_order"."shortfall" and "credit_order"."credits")
);
--> statement-breakpoint
CREATE TABLE "payment_event" (
	"id" text PRIMARY KEY NOT NULL,
	"provider" text NOT NULL,
	"type" text NOT NULL,
	"order_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "credit_order" ADD CONSTRAINT "credit_order_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_order_request_key_idx" ON "credit_order" USING btree ("user_id","request_key");--> statement-breakpoint
CREATE INDEX "credit_order_user_created_idx" ON "credit_order" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "credit_order_payment_intent_idx" ON "credit_order" USING btree ("payment_intent_id");
CREATE TABLE "auto_topup" (
	"user_id" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT false NOT NULL,
	"threshold" integer NOT NULL,
	"pack_id" text NOT NULL,
	"monthly_max" integer NOT NULL,
	"payment_method_id" text,
	"card_brand" text,
	"card_last4" text,
	"last_fired_at" timestamp with time zone,
	"stopped_reason" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "auto_topup_limits" CHECK ("auto_topup"."threshold" >= 0 and "auto_topup"."monthly_max" between 1 and 100),
	CONSTRAINT "auto_topup_stopped" CHECK ("auto_topup"."stopped_reason" in ('declined', 'authentication_required', 'failed')),
	CONSTRAINT "auto_topup_card" CHECK (not "auto_topup"."enabled" or "auto_topup"."payment_method_id" is not null)
);
--> statement-breakpoint
ALTER TABLE "credit_order" ADD COLUMN "automatic" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "auto_topup" ADD CONSTRAINT "auto_topup_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "auto_topup_enabled_idx" ON "auto_topup" USING btree ("user_id") WHERE "auto_topup"."enabled";
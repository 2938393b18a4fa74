CREATE TABLE "redemption" (
	"code_id" uuid NOT NULL,
	"user_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "redemption_code_id_user_id_pk" PRIMARY KEY("code_id","user_id")
);
--> statement-breakpoint
CREATE TABLE "redemption_code" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"code_hash" text NOT NULL,
	"hint" text NOT NULL,
	"batch" text NOT NULL,
	"credits" bigint NOT NULL,
	"max_uses" integer NOT NULL,
	"uses" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone,
	"created_by" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "redemption_code_code_hash_unique" UNIQUE("code_hash"),
	CONSTRAINT "redemption_code_credits_positive" CHECK ("redemption_code"."credits" > 0),
	CONSTRAINT "redemption_code_uses_within_max" CHECK ("redemption_code"."max_uses" > 0 and "redemption_code"."uses" >= 0 and "redemption_code"."uses" <= "redemption_code"."max_uses")
);
--> statement-breakpoint
ALTER TABLE "redemption" ADD CONSTRAINT "redemption_code_id_redemption_code_id_fk" FOREIGN KEY ("code_id") REFERENCES "public"."redemption_code"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "redemption" ADD CONSTRAINT "redemption_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "redemption_code_batch_idx" ON "redemption_code" USING btree ("batch");
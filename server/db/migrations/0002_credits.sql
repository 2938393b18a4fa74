CREATE TABLE "credit_balance" (
	"user_id" text PRIMARY KEY NOT NULL,
	"balance" bigint DEFAULT 0 NOT NULL,
	"held" bigint DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_balance_not_negative" CHECK ("credit_balance"."balance" >= 0),
	CONSTRAINT "credit_balance_held_within_balance" CHECK ("credit_balance"."held" >= 0 and "credit_balance"."held" <= "credit_balance"."balance")
);
--> statement-breakpoint
CREATE TABLE "credit_entry" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" text,
	"kind" text NOT NULL,
	"amount" bigint NOT NULL,
	"held_change" bigint DEFAULT 0 NOT NULL,
	"balance_after" bigint NOT NULL,
	"hold_id" uuid,
	"reference" text,
	"idempotency_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_entry_kind" CHECK ("credit_entry"."kind" in ('signup_bonus', 'purchase', 'hold', 'capture', 'release', 'refund', 'admin_adjustment', 'redemption', 'chargeback')),
	CONSTRAINT "credit_entry_balance_after_not_negative" CHECK ("credit_entry"."balance_after" >= 0)
);
--> statement-breakpoint
CREATE TABLE "credit_hold" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"user_id" text,
	"amount" bigint NOT NULL,
	"status" text DEFAULT 'open' NOT NULL,
	"captured" bigint,
	"reference" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "credit_hold_amount_positive" CHECK ("credit_hold"."amount" > 0),
	CONSTRAINT "credit_hold_status" CHECK ("credit_hold"."status" in ('open', 'captured', 'released')),
	CONSTRAINT "credit_hold_settlement" CHECK (("credit_hold"."status" = 'open' and "credit_hold"."captured" is null and "credit_hold"."settled_at" is null)
        or ("credit_hold"."status" = 'released' and "credit_hold"."captured" is null and "credit_hold"."settled_at" is not null)
        or ("credit_hold"."status" = 'captured' and "credit_hold"."captured" between 0 and "credit_hold"."amount" and "credit_hold"."settled_at" is not null))
);
--> statement-breakpoint
ALTER TABLE "credit_balance" ADD CONSTRAINT "credit_balance_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_entry" ADD CONSTRAINT "credit_entry_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_entry" ADD CONSTRAINT "credit_entry_hold_id_credit_hold_id_fk" FOREIGN KEY ("hold_id") REFERENCES "public"."credit_hold"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "credit_hold" ADD CONSTRAINT "credit_hold_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "credit_entry_idempotency_key_idx" ON "credit_entry" USING btree ("idempotency_key");--> statement-breakpoint
CREATE INDEX "credit_entry_user_created_idx" ON "credit_entry" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "credit_entry_hold_opened_once_idx" ON "credit_entry" USING btree ("hold_id") WHERE "credit_entry"."kind" = 'hold';--> statement-breakpoint
CREATE UNIQUE INDEX "credit_entry_hold_settled_once_idx" ON "credit_entry" USING btree ("hold_id") WHERE "credit_entry"."kind" in ('capture', 'release');--> statement-breakpoint
CREATE INDEX "credit_hold_user_status_idx" ON "credit_hold" USING btree ("user_id","status");--> statement-breakpoint
-- The ledger is append-only. The one update allowed is the anonymisation done by deleting a user (user_id set to
-- null by the foreign key); every other update or delete is refused by the database itself.
CREATE FUNCTION credit_entry_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.user_id IS NULL
     AND (to_jsonb(NEW) - 'user_id') = (to_jsonb(OLD) - 'user_id') THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'credit_entry is append-only' USING ERRCODE = 'integrity_constraint_violation';
END;
$$;--> statement-breakpoint
CREATE TRIGGER credit_entry_append_only BEFORE UPDATE OR DELETE ON "credit_entry"
  FOR EACH ROW EXECUTE FUNCTION credit_entry_append_only();

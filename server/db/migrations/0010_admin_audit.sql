CREATE TABLE "admin_action" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "admin_action_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"actor_id" text,
	"actor" text NOT NULL,
	"action" text NOT NULL,
	"target_type" text NOT NULL,
	"target_id" text,
	"target_label" text,
	"before" jsonb,
	"after" jsonb,
	"reason" text,
	"ip" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE INDEX "admin_action_created_idx" ON "admin_action" USING btree ("created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "admin_action_target_idx" ON "admin_action" USING btree ("target_type","target_id","created_at" DESC NULLS LAST);--> statement-breakpoint
-- The audit log is append-only: the database refuses every update and delete.
CREATE FUNCTION admin_action_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'admin_action is append-only' USING ERRCODE = 'integrity_constraint_violation';
END;
$$;--> statement-breakpoint
CREATE TRIGGER admin_action_append_only BEFORE UPDATE OR DELETE ON "admin_action"
  FOR EACH ROW EXECUTE FUNCTION admin_action_append_only();
--> statement-breakpoint
CREATE TRIGGER admin_action_no_truncate BEFORE TRUNCATE ON "admin_action"
  FOR EACH STATEMENT EXECUTE FUNCTION admin_action_append_only();

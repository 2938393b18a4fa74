CREATE INDEX "user_created_idx" ON "user" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "credit_entry_created_idx" ON "credit_entry" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "credit_order_paid_idx" ON "credit_order" USING btree ("paid_at");--> statement-breakpoint
CREATE INDEX "credit_order_disputed_idx" ON "credit_order" USING btree ("disputed_at") WHERE "credit_order"."disputed_at" is not null;--> statement-breakpoint
CREATE INDEX "payment_event_order_idx" ON "payment_event" USING btree ("order_id","created_at");
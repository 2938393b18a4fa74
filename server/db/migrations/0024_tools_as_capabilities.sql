ALTER TABLE "generation" DROP CONSTRAINT "generation_tool";--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "mask_asset_id" uuid;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "end_asset_id" uuid;--> statement-breakpoint
ALTER TABLE "generation" ADD COLUMN "parent_id" uuid;--> statement-breakpoint
ALTER TABLE "generation" ADD CONSTRAINT "generation_mask_asset_id_asset_id_fk" FOREIGN KEY ("mask_asset_id") REFERENCES "public"."asset"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation" ADD CONSTRAINT "generation_end_asset_id_asset_id_fk" FOREIGN KEY ("end_asset_id") REFERENCES "public"."asset"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "generation" ADD CONSTRAINT "generation_parent_id_generation_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."generation"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "generation_parent_idx" ON "generation" USING btree ("parent_id") WHERE "generation"."parent_id" is not null;--> statement-breakpoint
ALTER TABLE "generation" ADD CONSTRAINT "generation_tool" CHECK ("generation"."tool" in ('text-to-image', 'image-to-image', 'inpaint', 'outpaint', 'upscale', 'remove-background', 'text-to-video', 'image-to-video'));
DROP INDEX IF EXISTS `entries_sort_key`;
--> statement-breakpoint
ALTER TABLE `entries` DROP COLUMN `sort_key`;

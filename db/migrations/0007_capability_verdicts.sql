-- What the capability rules (src/model/capability-rules.ts) make of each probe's two stored
-- bodies, kept beside them for the list's `supports=` and `ready=` filters, the statistics and
-- the change feed: `supports`, a JSON array of filter values; `verdict`, a JSON object of the
-- three app kinds' statuses. NULL until derived: openDatabase derives every NULL row from the
-- stored bodies right after the migrations (SQLite cannot run the rules), and `npm run derive`
-- derives every row again when the rules change.
ALTER TABLE `probes` ADD `supports` text;
--> statement-breakpoint
ALTER TABLE `probes` ADD `verdict` text;
--> statement-breakpoint
-- Each entry's verdict statuses, copied from its URL's probe by every write that refreshes the
-- entry's served fields (src/db/effective-fields.ts), so the change feed's trigger sees them
-- change; NULL while the URL is unprobed (every verdict unknown).
ALTER TABLE `entries` ADD `verdict` text;
--> statement-breakpoint
ALTER TABLE `entry_changes_pending` ADD `verdict` text;
--> statement-breakpoint
DROP TRIGGER `entries_update_change`;
--> statement-breakpoint
CREATE TRIGGER `entries_update_change` AFTER UPDATE ON `entries`
WHEN old.`url` IS NOT new.`url` OR old.`vendor_id` IS NOT new.`vendor_id`
	OR old.`organization_name` IS NOT new.`organization_name` OR old.`npi` IS NOT new.`npi`
	OR old.`tenant_id` IS NOT new.`tenant_id` OR old.`fhir_version` IS NOT new.`fhir_version`
	OR old.`access` IS NOT new.`access` OR old.`city` IS NOT new.`city` OR old.`state` IS NOT new.`state`
	OR old.`zip_code` IS NOT new.`zip_code` OR old.`status` IS NOT new.`status`
	OR old.`unusable` IS NOT new.`unusable` OR old.`verdict` IS NOT new.`verdict`
BEGIN
	INSERT OR IGNORE INTO `entry_changes_pending` (`entry_row_id`, `was_listed`, `url`, `vendor_id`, `vendor_name`,
		`organization_name`, `npi`, `tenant_id`, `fhir_version`, `access`, `city`, `state`, `zip_code`, `status`, `verdict`)
	VALUES (old.`row_id`, old.`status` != 'removed' AND old.`unusable` IS NULL, old.`url`, old.`vendor_id`,
		(SELECT `name` FROM `vendors` WHERE `id` = old.`vendor_id`), old.`organization_name`, old.`npi`, old.`tenant_id`,
		old.`fhir_version`, old.`access`, old.`city`, old.`state`, old.`zip_code`, old.`status`, old.`verdict`);
END;
--> statement-breakpoint
DROP TRIGGER `vendors_name_change`;
--> statement-breakpoint
CREATE TRIGGER `vendors_name_change` AFTER UPDATE OF `name` ON `vendors`
WHEN old.`name` IS NOT new.`name`
BEGIN
	INSERT OR IGNORE INTO `entry_changes_pending` (`entry_row_id`, `was_listed`, `url`, `vendor_id`, `vendor_name`,
		`organization_name`, `npi`, `tenant_id`, `fhir_version`, `access`, `city`, `state`, `zip_code`, `status`, `verdict`)
	SELECT `row_id`, `status` != 'removed' AND `unusable` IS NULL, `url`, `vendor_id`, old.`name`, `organization_name`,
		`npi`, `tenant_id`, `fhir_version`, `access`, `city`, `state`, `zip_code`, `status`, `verdict`
	FROM `entries` WHERE `vendor_id` = old.`id`;
END;

-- The change feed (GET /api/v1/changes, src/db/changes.ts): what each dataset version changed in
-- what the API serves, per entry. Triggers note an entry's served values as they were before the
-- first write of a transaction touched them; markDatasetChanged compares them with the values the
-- transaction leaves and records the difference under the version it makes.
CREATE TABLE `dataset_versions` (
	`version` integer PRIMARY KEY NOT NULL,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `dataset_versions_at` ON `dataset_versions` (`at`);
--> statement-breakpoint
CREATE TABLE `entry_changes` (
	`version` integer NOT NULL,
	`entry_row_id` integer NOT NULL,
	`change` text NOT NULL,
	`fields` text,
	PRIMARY KEY(`version`, `entry_row_id`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `entry_changes_pending` (
	`entry_row_id` integer PRIMARY KEY NOT NULL,
	`was_listed` integer NOT NULL,
	`url` text,
	`vendor_id` text,
	`vendor_name` text,
	`organization_name` text,
	`npi` text,
	`tenant_id` text,
	`fhir_version` text,
	`access` text,
	`city` text,
	`state` text,
	`zip_code` text,
	`status` text
);
--> statement-breakpoint
CREATE TRIGGER `entries_insert_change` AFTER INSERT ON `entries`
BEGIN
	INSERT OR IGNORE INTO `entry_changes_pending` (`entry_row_id`, `was_listed`) VALUES (new.`row_id`, 0);
END;
--> statement-breakpoint
CREATE TRIGGER `entries_update_change` AFTER UPDATE ON `entries`
WHEN old.`url` IS NOT new.`url` OR old.`vendor_id` IS NOT new.`vendor_id`
	OR old.`organization_name` IS NOT new.`organization_name` OR old.`npi` IS NOT new.`npi`
	OR old.`tenant_id` IS NOT new.`tenant_id` OR old.`fhir_version` IS NOT new.`fhir_version`
	OR old.`access` IS NOT new.`access` OR old.`city` IS NOT new.`city` OR old.`state` IS NOT new.`state`
	OR old.`zip_code` IS NOT new.`zip_code` OR old.`status` IS NOT new.`status`
	OR old.`unusable` IS NOT new.`unusable`
BEGIN
	INSERT OR IGNORE INTO `entry_changes_pending` (`entry_row_id`, `was_listed`, `url`, `vendor_id`, `vendor_name`,
		`organization_name`, `npi`, `tenant_id`, `fhir_version`, `access`, `city`, `state`, `zip_code`, `status`)
	VALUES (old.`row_id`, old.`status` != 'removed' AND old.`unusable` IS NULL, old.`url`, old.`vendor_id`,
		(SELECT `name` FROM `vendors` WHERE `id` = old.`vendor_id`), old.`organization_name`, old.`npi`, old.`tenant_id`,
		old.`fhir_version`, old.`access`, old.`city`, old.`state`, old.`zip_code`, old.`status`);
END;
--> statement-breakpoint
CREATE TRIGGER `vendors_name_change` AFTER UPDATE OF `name` ON `vendors`
WHEN old.`name` IS NOT new.`name`
BEGIN
	INSERT OR IGNORE INTO `entry_changes_pending` (`entry_row_id`, `was_listed`, `url`, `vendor_id`, `vendor_name`,
		`organization_name`, `npi`, `tenant_id`, `fhir_version`, `access`, `city`, `state`, `zip_code`, `status`)
	SELECT `row_id`, `status` != 'removed' AND `unusable` IS NULL, `url`, `vendor_id`, old.`name`, `organization_name`,
		`npi`, `tenant_id`, `fhir_version`, `access`, `city`, `state`, `zip_code`, `status`
	FROM `entries` WHERE `vendor_id` = old.`id`;
END;
--> statement-breakpoint
-- Changes are known from the version this migration meets on: an older `since` is answered 410.
INSERT INTO `dataset_meta` (`key`, `value`)
	SELECT 'changes_from', `value` FROM `dataset_meta` WHERE `key` = 'dataset_version';

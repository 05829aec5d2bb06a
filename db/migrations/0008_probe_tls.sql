-- What the probe learns of where a server really is: the https host's TLS handshake (protocol,
-- the leaf certificate's expiry and issuer, whether the chain verified), read once per host and
-- run, and where /metadata finally answered after redirects.
ALTER TABLE `probes` ADD `tls_protocol` text;
--> statement-breakpoint
ALTER TABLE `probes` ADD `tls_certificate_expires_at` text;
--> statement-breakpoint
ALTER TABLE `probes` ADD `tls_issuer` text;
--> statement-breakpoint
ALTER TABLE `probes` ADD `tls_verified` integer;
--> statement-breakpoint
ALTER TABLE `probes` ADD `final_url` text;
--> statement-breakpoint
ALTER TABLE `probes` ADD `redirect_count` integer;

import { KIND_FILTER_LABELS, READY_LABELS, SUPPORTS_LABELS } from "./client/labels";

const options = (labels: Record<string, string>) =>
  Object.entries(labels)
    .map(([value, label]) => `<option value="${value}">${label}</option>`)
    .join("");

/** The hashed asset paths the page loads; the only values written into the HTML. */
export interface PageAssets {
  script: string;
  stylesheet: string;
}

const SAFE_PATH = /^\/assets\/[A-Za-z0-9._-]+$/;

/**
 * The page shell: every control with its label, the regions the script fills, no inline script
 * or style (the Content-Security-Policy forbids both). Data never passes through this HTML: the
 * script fetches it and writes it into the page as text.
 */
export function pageHtml({ script, stylesheet }: PageAssets): string {
  for (const path of [script, stylesheet]) if (!SAFE_PATH.test(path)) throw new Error(`unsafe asset path ${path}`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Endpoint Directory: find a FHIR endpoint</title>
<meta name="description" content="Search the FHIR endpoints that US EHR vendors publish: by organization, vendor, state, FHIR version, audience, SMART on FHIR and resources.">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${stylesheet}">
<script type="module" src="${script}"></script>
</head>
<body>
<a class="skip" href="#results-heading">Skip to results</a>
<header class="top">
<h1><a href="/">Endpoint Directory</a></h1>
<p>Where US EHR vendors' FHIR servers live, what they support and whether they answer. For programs: the <a href="/docs">API reference</a>.</p>
<p id="freshness" class="freshness" aria-live="polite"></p>
</header>
<div class="layout">
<main id="main">
<form id="search" role="search" action="/" method="get" aria-label="Search endpoints">
<div class="field field-query"><label for="f-query">Name, NPI, web address, or near a ZIP</label><input id="f-query" name="query" type="search" maxlength="200" autocomplete="off" spellcheck="false" placeholder="mercy hospital · 1234567893 · epic.com · near 44195" aria-describedby="f-query-hint"><small id="f-query-hint">An organization's name, a 10-digit NPI, a FHIR base URL or host (epic.com), or "near" and a ZIP code</small></div>
<details id="more-filters" class="more-filters"><summary id="more-filters-summary">Filters</summary>
<div class="filters">
<div class="field"><label for="f-vendor">Vendor</label><select id="f-vendor" name="vendor"><option value="">Any vendor</option></select></div>
<div class="field"><label for="f-kind">Published by</label><select id="f-kind" name="kind"><option value="">Anyone</option>${options(KIND_FILTER_LABELS)}</select></div>
<div class="field"><label for="f-state">State</label><select id="f-state" name="state"><option value="">Any state</option></select></div>
<div class="field"><label for="f-fhirVersion">FHIR version</label><select id="f-fhirVersion" name="fhirVersion"><option value="">Any version</option></select></div>
<div class="field"><label for="f-access">Audience</label><select id="f-access" name="access"><option value="">Any audience</option><option value="patient">Patients</option><option value="provider">Providers</option></select></div>
<div class="field"><label for="f-smartSupported">SMART on FHIR</label><select id="f-smartSupported" name="smartSupported"><option value="">Either</option><option value="true">Supported</option><option value="false">Not supported</option></select></div>
<div class="field"><label for="f-supports">Supports</label><select id="f-supports" name="supports"><option value="">Anything</option>${options(SUPPORTS_LABELS)}</select></div>
<div class="field"><label for="f-ready">Ready for</label><select id="f-ready" name="ready"><option value="">Anything</option>${options(READY_LABELS)}</select></div>
<div class="field"><label for="f-environment">Environment</label><select id="f-environment" name="environment"><option value="">Any</option><option value="production">Production</option><option value="non-production">Test, demo, sandbox</option></select></div>
<div class="field"><label for="f-hasResource">Resources, all of</label><input id="f-hasResource" name="hasResource" type="text" autocomplete="off" spellcheck="false" placeholder="Patient, Observation" aria-describedby="f-hasResource-hint"><small id="f-hasResource-hint">Comma-separated FHIR types</small></div>
</div>
</details>
<div class="actions"><button type="submit">Search</button><button type="button" id="clear" class="secondary">Clear</button></div>
</form>
<div id="message" class="message" role="alert" hidden></div>
<section id="results" aria-labelledby="results-heading">
<h2 id="results-heading" tabindex="-1">Results</h2>
<p id="summary" class="summary" aria-live="polite" aria-atomic="true"></p>
<div class="result-tools"><label for="f-sort">Sort by</label><select id="f-sort" name="sort"><option value="">Best first</option><option value="relevance">Name match</option><option value="name">Name</option><option value="distance">Distance</option></select><p id="downloads" class="downloads"></p></div>
<ol id="list" class="results"></ol>
<nav id="pager" class="pager" aria-label="Result pages"></nav>
</section>
<section id="detail" class="detail" aria-labelledby="detail-heading" hidden></section>
<noscript><p class="message">This page needs JavaScript. The same data is available from the API: see the <a href="/docs">API reference</a>.</p></noscript>
</main>
<aside id="overview" class="overview" aria-labelledby="overview-heading">
<h2 id="overview-heading">The dataset</h2>
<p id="overview-summary"></p>
<figure><figcaption id="versions-caption">Endpoints by FHIR version</figcaption><div id="versions-chart"></div></figure>
<figure><figcaption id="vendors-caption">Largest vendors</figcaption><div id="vendors-chart"></div></figure>
<section id="readiness" aria-labelledby="readiness-heading" hidden><h3 id="readiness-heading">What developers' servers offer</h3><p id="readiness-intro" class="muted">Share of each developer's verified endpoints.</p><div id="readiness-table"></div></section>
</aside>
</div>
<p id="copy-status" class="visually-hidden" aria-live="polite"></p>
</body>
</html>
`;
}

/**
 * Whether an entry is a production server or a test, QA, demo, sandbox, development, staging or
 * training one (or a placeholder organization), by whole-word rules on its URL's host, its path
 * and its organization name. The one rule table: the directory index derives every entry's
 * environment from it (so a rule change applies to every database at its next index build),
 * `npm run data:audit` lists what each rule matches, and docs/api.md ("Environment") lists the
 * rules by id (a test checks that it names every one). The index format includes a hash of this
 * file (src/directory/directory-data.ts), so an index built under other rules is rebuilt. No imports: the API schemas, and through
 * them the search page's script, use these lists.
 */

export const ENVIRONMENTS = ["production", "non-production"] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/**
 * The codes of FHIR R5's Endpoint.environmentType (http://hl7.org/fhir/endpoint-environment),
 * which the FHIR Endpoint carries as the R5 cross-version extension.
 */
export const ENVIRONMENT_CODE_SYSTEM = "http://hl7.org/fhir/endpoint-environment";
export const ENVIRONMENT_EXTENSION = "http://hl7.org/fhir/5.0/StructureDefinition/extension-Endpoint.environmentType";
export const ENVIRONMENT_CODES = {
  prod: "Production",
  staging: "Staging",
  dev: "Development",
  test: "Test",
  train: "Training",
} as const;
export type EnvironmentCode = keyof typeof ENVIRONMENT_CODES;

type Part = "host" | "path" | "name";

interface EnvironmentRule {
  /** Stable id, served as `meta.environment.rule` and in `/source`. */
  id: string;
  part: Part;
  /** The endpoint-environment code of an entry this rule matches. */
  code: Exclude<EnvironmentCode, "prod">;
  /** What it matches, in words (the audit and the docs say it). */
  what: string;
  /** The word or text that makes the rule hold, or null. */
  find(text: string): string | null;
}

/**
 * The words of a host (its labels split at `.` and `-`), of a path (its segments split at `/`,
 * `-`, `_`, `.` and `~`) or of a name (runs of letters and digits), each with where it starts.
 */
const lastWords = new Map<RegExp, { text: string; words: { word: string; at: number }[] }>();
const wordsOf = (text: string, separators: RegExp) => {
  // The rules of one part read the same text in turn: it is split once.
  const last = lastWords.get(separators);
  if (last?.text === text) return last.words;
  const words: { word: string; at: number }[] = [];
  for (const match of text.matchAll(separators)) words.push({ word: match[0], at: match.index });
  lastWords.set(separators, { text, words });
  return words;
};
const HOST_WORDS = /[^.-]+/g;
const PATH_WORDS = /[^/._~-]+/g;
const NAME_WORDS = /[\p{L}\p{N}]+/gu;

/**
 * The parts of a word written in camel case (`PFInternalTestUseOnly` → PF, Internal, Test, Use,
 * Only; `PSTest1` → PS, Test1; `demoAPIServer` → demo, API, Server), each with where it starts;
 * none for a word in one case throughout.
 */
const CAMEL_BREAK = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;
function camelParts(word: string, at: number): { word: string; at: number }[] {
  const parts = word.split(CAMEL_BREAK);
  if (parts.length < 2) return [];
  let start = at;
  return parts.map((part) => {
    const item = { word: part, at: start };
    start += part.length;
    return item;
  });
}

/**
 * A name's words and the camel-case parts of each (a name glues words: "SaratTest",
 * "PFInternalTestUseOnly - …"). A path's words and the parts of those of letters only
 * (`demoAPIServer`, `PEHRsandDEV`): a word with digits is an id, whose case means nothing.
 */
const lastParts = new Map<RegExp, { text: string; words: { word: string; at: number }[] }>();
const wordsAndParts = (text: string, separators: RegExp, lettersOnly: boolean) => {
  const last = lastParts.get(separators);
  if (last?.text === text) return last.words;
  const words = wordsOf(text, separators).flatMap((w) =>
    lettersOnly && /\p{N}/u.test(w.word) ? [w] : [w, ...camelParts(w.word, w.at)],
  );
  lastParts.set(separators, { text, words });
  return words;
};

/**
 * A word that is one of `terms`, alone or with digits after it, or after a short code and digits
 * (`test`, `TEST01`, `Demo01`, `A03Test`, `DEV184`, `qa11`), case-insensitive. Two letters
 * before the digits are a tenant code, not a prefix (`js62qa55` is an id).
 */
const termWord = (terms: readonly string[]) => new RegExp(`^(?:[a-z]?\\d+)?(?:${terms.join("|")})\\d*$`, "i");

/**
 * English words and surnames that begin or end with a host rule's term, which the compound host
 * rules must not catch (`latest.example.com`, `drsachdev.com`).
 */
const HOST_NOT_TERMS = [
  "latest",
  "greatest",
  "fastest",
  "contest",
  "protest",
  "attest",
  "detest",
  "testa",
  "testament",
  "testimony",
  "testimonial",
  "testosterone",
  "backstage",
  "onstage",
  "upstage",
  "sachdev",
  "baldev",
  // fhir + prod + a site code (`fhirprodev`: Evansville's production server).
  "prodev",
];

/**
 * A host rule: a host word that is a term (termWord) or contains `anywhere`, or, for `compound`
 * terms, a word that ends (`ending`) or begins (`starting`) with one, joined to a product or site
 * name (`fhirtest`, `fhirapitest`, `revolutionehrdev`, `testfhir`), unless the word is in
 * HOST_NOT_TERMS, nor ends (begins) with one (`drsachdev`). Host names are lowercase.
 */
function hostRule(
  terms: readonly string[],
  compound: { ending?: readonly string[]; starting?: readonly string[]; anywhere?: string; glued?: RegExp },
) {
  const whole = termWord(terms);
  const ending = compound.ending?.length ? new RegExp(`(?:${compound.ending.join("|")})\\d*$`, "i") : null;
  const starting = compound.starting?.length ? new RegExp(`^(?:${compound.starting.join("|")})`, "i") : null;
  return (host: string) => {
    // The top-level label names the registry, not the server (`fhir.tls.test` is named by `fhir.tls`).
    const dot = host.lastIndexOf(".");
    for (const { word } of wordsOf(dot > 0 ? host.slice(0, dot) : host, HOST_WORDS)) {
      if (whole.test(word) || (compound.anywhere && word.includes(compound.anywhere))) return word;
      if (compound.glued?.test(word)) return word;
      const bare = word.replace(/\d+$/, "");
      if (ending?.test(word) && !HOST_NOT_TERMS.some((not) => bare.endsWith(not))) return word;
      if (starting?.test(word) && !HOST_NOT_TERMS.some((not) => word.startsWith(not))) return word;
    }
    return null;
  };
}

/**
 * A path rule: a path word, or a camel-case part of one of letters only (`demoAPIServer`), that
 * is a term (termWord), or a path word that contains one of `anywhere`.
 */
function pathRule(terms: readonly string[], anywhere: readonly string[] = []) {
  const whole = termWord(terms);
  const inside = anywhere.length ? new RegExp(anywhere.join("|"), "i") : null;
  return (path: string) => {
    for (const { word } of wordsAndParts(path, PATH_WORDS, true))
      if (whole.test(word) || inside?.test(word)) return word;
    return null;
  };
}

/**
 * A name rule: a name word that is a term (termWord), where `keep` (given the name and where the
 * word starts and ends) does not say the word is part of a real organization's name.
 */
function nameRule(terms: readonly string[], keep?: (name: string, start: number, end: number) => boolean) {
  const whole = termWord(terms);
  return (name: string) => {
    for (const { word, at } of wordsAndParts(name, NAME_WORDS, false))
      if (whole.test(word) && !keep?.(name, at, at + word.length)) return word;
    return null;
  };
}

/**
 * Real words and names that begin or end with `test`, which the glued-word name rule must not
 * catch ("Testa", "Testament", "Testimony", "Testicular", "Testing" — `testing` has its own rule —
 * "Contest", "Protestant", "Attestation", "Latest", "Neurotest of New York").
 */
const NAME_NOT_STARTING = /^(?:testa|testi|testos)/i;
const NAME_NOT_ENDING = /(?:contest|protest|attest|detest|latest|greatest|fastest|neurotest)\d*$/i;

/**
 * The glued-word name rule: a name word that begins with `test` joined to more ("testepic",
 * "Testclinic", "TESTg2g2") or ends with it after two letters or more ("SaratTest", "ZZTEST",
 * "athenahealthtest", "PSTest1"), unless it is a real word (NAME_NOT_STARTING, NAME_NOT_ENDING);
 * "Itest" (one letter before) is a company's name.
 */
function gluedTestWord(name: string): string | null {
  for (const { word } of wordsOf(name, NAME_WORDS)) {
    const lower = word.toLowerCase();
    if (/^test[\p{L}\p{N}]+$/u.test(lower) && !NAME_NOT_STARTING.test(lower)) return word;
    if (/\p{L}{2}.*test\d*$|\p{L}\p{N}+.*test\d*$/u.test(lower) && !NAME_NOT_ENDING.test(lower)) return word;
  }
  return null;
}

/** The first of `finders` that finds something, and what it found. */
const firstOf =
  (...finders: ((text: string) => string | null)[]) =>
  (text: string) => {
    for (const find of finders) {
      const found = find(text);
      if (found !== null) return found;
    }
    return null;
  };

/** Whether the name goes on after the word with a space and a word of two letters or more. */
const followedByWord = (name: string, end: number) => /^\s+\p{L}{2,}/u.test(name.slice(end));
/** Whether the word stands as a qualifier: after a dash, underscore or bracket, or followed by an underscore. */
const qualifier = (name: string, start: number, end: number) =>
  /[-_([]\s*$/.test(name.slice(0, start)) || name[end] === "_";

/**
 * The rules, in the order they are tried: host, then path, then name; the first that holds is the
 * entry's rule. Each names what it found.
 */
export const ENVIRONMENT_RULES: readonly EnvironmentRule[] = [
  {
    id: "host-test",
    part: "host",
    code: "test",
    what: "a host word test, tst, testing, tests or mock, or one ending or beginning with test or tst (`fhirtest`, `testfhir`, `ehrwebtst`), or with test or tst after a digit or before fhir (`scm16testps1`, `suntstfhirvip`)",
    find: hostRule(["test", "tst", "tests", "testing", "mock"], {
      ending: ["test", "tst", "testing"],
      starting: ["test", "tst"],
      glued: /\d(?:test|tst)|(?:test|tst)fhir/i,
    }),
  },
  {
    id: "host-qa",
    part: "host",
    code: "test",
    what: "a host word qa or uat, or one ending in qa (`fhirqa`) or in qa before a TouchWorks version (`v2qatw17`)",
    find: hostRule(["qa", "uat"], { ending: ["qa"], glued: /qatw(?:\d+(?:pm\d+)?)?$/i }),
  },
  {
    id: "host-demo",
    part: "host",
    code: "test",
    what: "a host word demo, or one ending in demo (`fastplusdemo`)",
    find: hostRule(["demo", "demos"], { ending: ["demo"] }),
  },
  {
    id: "host-sandbox",
    part: "host",
    code: "test",
    what: "a host word containing sandbox, or the word sbx or playground",
    find: hostRule(["sbx", "playground"], { anywhere: "sandbox" }),
  },
  {
    id: "host-dev",
    part: "host",
    code: "dev",
    what: "a host word dev or development, or one ending in dev (`revolutionehrdev`; not `fhirprodev`, fhir + prod + a site code) or in dev before a TouchWorks version (`ciepdevtw`, `optumdevtw17pm15`)",
    find: hostRule(["dev", "development"], { ending: ["dev"], glued: /devtw(?:\d+(?:pm\d+)?)?$/i }),
  },
  {
    id: "host-staging",
    part: "host",
    code: "staging",
    what: "a host word staging, stage, preprod or nonprod, or one ending in stage or staging (`prostage`)",
    find: hostRule(["staging", "stage", "preprod", "nonprod"], { ending: ["stage", "staging"] }),
  },
  {
    id: "host-training",
    part: "host",
    code: "train",
    what: "a host word training or train",
    find: hostRule(["training", "train"], {}),
  },
  {
    id: "path-test",
    part: "path",
    code: "test",
    what: "a path word test, testing, qa or uat (`/test/api`, `/10128970-TEST`, `/a03test`, `/testing-client-network`, `/PSTest` — a camel-case part of a word of letters)",
    find: pathRule(["test", "tests", "testing", "qa", "uat"]),
  },
  {
    id: "path-demo",
    part: "path",
    code: "test",
    what: "a path word demo or sbx, or one containing sandbox or ending in example (`/sales-demo-network`, `/Sandbox`, `/demoAPIServer`, `/ambulatorypracticeexample1`)",
    find: pathRule(["demo", "demos", "sbx"], ["sandbox", "example\\d*$"]),
  },
  {
    id: "path-dev",
    part: "path",
    code: "dev",
    what: "a path word dev or development (an API gateway's `/dev/` stage, `/PEHRsandDEV`)",
    find: pathRule(["dev", "development"]),
  },
  {
    id: "path-staging",
    part: "path",
    code: "staging",
    what: "a path word staging, stage, preprod or nonprod",
    find: pathRule(["staging", "stage", "preprod", "nonprod"]),
  },
  {
    id: "path-training",
    part: "path",
    code: "train",
    what: "a path word train, or one containing training (`/ahgtraining_mmAPIServer`)",
    find: pathRule(["train"], ["training"]),
  },
  {
    id: "name-placeholder",
    part: "name",
    code: "test",
    what: 'a placeholder: a name that says it is not a real organization ("zusk not a real company", "Some Orgs", "here we go again", "testme", "to be thrown away"), the word fake, one letter repeated ("zzzzzzz"), a template left in ("Practice Name", "NSLIJ Template"), keyboard mashing (asdf)',
    find: firstOf(
      nameRule(["fake", "template"]),
      (name) => /^\s*(\p{L})\1{2,}\s*$/iu.exec(name)?.[0].trim() ?? null,
      (name) =>
        /^\s*(?:practice|organization|organisation|clinic|facility|provider|company)\s+name\s*$/i
          .exec(name)?.[0]
          .trim() ?? null,
      (name) => /\p{L}*asdf\p{L}*/iu.exec(name)?.[0] ?? null,
      (name) => /\bto be thrown away\b|\bnot\s+a\s+real\b/i.exec(name)?.[0] ?? null,
      (name) =>
        /^\s*(?:(?:some|another)\s+org(?:s+|anizations?)|here\s+we\s+go\s+again|test\s*me)\s*$/i
          .exec(name)?.[0]
          .trim() ?? null,
    ),
  },
  {
    id: "name-test",
    part: "name",
    code: "test",
    what: 'a name word or camel-case part test or tests ("A - Test Clinic", "A03Test", "Blessing Hospital Test", "PFInternalTestUseOnly - …"), a word beginning with test joined to more or ending in it after two letters ("testepic", "SaratTest", "ZZTEST", "PSTest1"; not "Testa", "Protestant", "Attestation", "Contest", "Neurotest", "Itest"), testing as the first word or after ONC ("Testing Client Network", "ONC Testing"; "Dream Sleep Testing" is a real service), or mock as a qualifier after a dash ("… - Mock")',
    find: firstOf(
      nameRule(["test", "tests"]),
      gluedTestWord,
      nameRule(
        ["testing"],
        (text, start) => /\p{L}/u.test(text.slice(0, start)) && !/^\s*ONC\s+$/i.test(text.slice(0, start)),
      ),
      nameRule(["mock"], (text, start, end) => !qualifier(text, start, end)),
    ),
  },
  {
    id: "name-example",
    part: "name",
    code: "test",
    what: 'a name word example ("Firely Secure Example REST Endpoint", "Example Practice")',
    find: nameRule(["example", "examples"]),
  },
  {
    id: "name-qa",
    part: "name",
    code: "test",
    what: 'a name word qa, uat or sbx ("Northwell Health QA", "QA_EHR_E170103…")',
    find: nameRule(["qa", "uat", "sbx"]),
  },
  {
    id: "name-demo",
    part: "name",
    code: "test",
    what: 'a name word demo ("Epic Demo", "… - Demo01"; "Demopolis" is not one)',
    find: nameRule(["demo", "demos"]),
  },
  {
    id: "name-sandbox",
    part: "name",
    code: "test",
    what: 'a name word sandbox ("Epic Sandbox"), except a name that begins with it followed by another word ("Sandbox Pediatrics" would be a practice)',
    find: nameRule(["sandbox"], (name, start, end) => start === 0 && followedByWord(name, end)),
  },
  {
    id: "name-dev",
    part: "name",
    code: "dev",
    what: 'a name word dev not followed by a further word but env, environment or server ("Touchworks Dev", "Northwell DEV 18.4"; "Dev Mishra M.D." is a person), or development as a qualifier after a dash ("Roswell Park - Development")',
    find: firstOf(
      nameRule(
        ["dev"],
        (text, _start, end) =>
          followedByWord(text, end) && !/^\s+(?:env|environment|server)(?![\p{L}])/iu.test(text.slice(end)),
      ),
      nameRule(["development"], (text, start, end) => !qualifier(text, start, end)),
    ),
  },
  {
    id: "name-staging",
    part: "name",
    code: "staging",
    what: 'a name word staging ("Nexus Staging Environment")',
    find: nameRule(["staging", "preprod", "nonprod"]),
  },
  {
    id: "name-training",
    part: "name",
    code: "train",
    what: 'a name word training or train as a qualifier after a dash or underscore ("Sandbox - Training", "Train_Unity Health Care"; "Elevate Athletic Training" is a practice)',
    find: nameRule(["training", "train"], (text, start, end) => !qualifier(text, start, end)),
  },
  {
    id: "name-sample",
    part: "name",
    code: "test",
    what: 'a name beginning "Sample Client" ("Sample Client 001")',
    find: (name) => /^\s*sample\s+client(?![\p{L}])/iu.exec(name)?.[0].trim() ?? null,
  },
];

/** What made an entry non-production: the rule's id, its endpoint-environment code and what it found. */
export interface EnvironmentMatch {
  rule: string;
  code: Exclude<EnvironmentCode, "prod">;
  found: string;
}

/** The parts of a URL the host and path rules read: its host name and its path. */
function urlParts(url: string): { host: string; path: string } {
  const afterScheme = url.indexOf("://");
  const rest = afterScheme < 0 ? url : url.slice(afterScheme + 3);
  const slash = rest.search(/[/?#]/);
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const hostPort = authority.slice(authority.lastIndexOf("@") + 1);
  const host = hostPort.startsWith("[") ? hostPort : hostPort.replace(/:\d*$/, "");
  const path = slash < 0 ? "" : rest.slice(slash).replace(/[?#].*$/, "");
  return { host: host.toLowerCase(), path };
}

/**
 * Letters every host and path rule needs, and every name rule: a URL or name without any of them
 * matches no rule, and is judged without splitting it into words (most are). A new rule's terms
 * must be covered here.
 */
const URL_TRIGGERS = /test|tst|qa|uat|demo|sandbox|sbx|playground|dev|stag|prod|train|mock|example/i;
const NAME_TRIGGERS =
  /test|qa|uat|sbx|demo|sandbox|dev|stag|prod|train|sample|fake|asdf|thrown|name|mock|example|real|org|again|template|(\p{L})\1\1/iu;

/** The index (in ENVIRONMENT_RULES) of the first host or path rule the URL matches, and what it found; null for none. */
export function urlEnvironment(url: string): { rule: number; found: string } | null {
  if (!URL_TRIGGERS.test(url)) return null;
  const { host, path } = urlParts(url);
  for (let i = 0; i < ENVIRONMENT_RULES.length; i++) {
    const rule = ENVIRONMENT_RULES[i]!;
    if (rule.part === "name") continue;
    const found = rule.find(rule.part === "host" ? host : path);
    if (found !== null) return { rule: i, found };
  }
  return null;
}

/** The index of the first name rule the organization name matches, and what it found; null for none. */
export function nameEnvironment(name: string | null): { rule: number; found: string } | null {
  if (name === null || !NAME_TRIGGERS.test(name)) return null;
  for (let i = 0; i < ENVIRONMENT_RULES.length; i++) {
    const rule = ENVIRONMENT_RULES[i]!;
    if (rule.part !== "name") continue;
    const found = rule.find(name);
    if (found !== null) return { rule: i, found };
  }
  return null;
}

/** The rule an entry (its URL and organization name) matches, or null for a production entry. */
export function environmentMatch(url: string, organizationName: string | null): EnvironmentMatch | null {
  const hit = urlEnvironment(url) ?? nameEnvironment(organizationName);
  if (hit === null) return null;
  const rule = ENVIRONMENT_RULES[hit.rule]!;
  return { rule: rule.id, code: rule.code, found: hit.found };
}

import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ENVIRONMENT_RULES, environmentMatch } from "../../src/model/environment";
import { PRODUCTION_NAMES } from "../../src/pipeline/national/audit";

const rule = (url: string, name: string | null = null) => environmentMatch(url, name)?.rule ?? null;

/**
 * Real organizations and places whose names hold a rule's letters (many from the bundled national
 * lists, db/national/): every one must stay production.
 */
const MUST_STAY_PRODUCTION = [
  "Testa Family Medicine",
  "NJ - David Alan Testa DO, PA",
  "Contest Health",
  "Protestant Hospital",
  "Attestation Services",
  "Devon Family Practice",
  "MLH - Devon Family Practice",
  "Demopolis Family Practice",
  "Child Development Center",
  "Northside Center for Child Development",
  "Sandbox Pediatrics",
  "Augusta Gastrointestinal",
  "Dev Mishra MD",
  "CA - Dev Mishra M.D.",
  "Austin Psychological Testing Center",
  "MI - Dream Sleep Testing",
  "NY - Neurotest of New York",
  "MI - Itest Health PLC",
  "Latest Health",
  "Testament Care",
  "Testicular Cancer Center",
  "Doylestown AssociatesThyroid Endocrine",
  "AR NextStep Counseling Services",
  "CT - SmartStart Pediatrics, LLC",
  "IL - Brightstar Mental Health - Startup",
  "POTTSTOWN CLINIC COMPANY, LLC",
  "CC065_MOCKINGBIRD OBGYN II PLLC",
  "Smockville Counseling",
  "Mock Family Dentistry",
  "Gastro-Intestinal Consultants of Manhattan, P.A.",
  "Devotion Health Services",
  "NE - Devine Healthcare, LLC",
  "OHS - Baldev Gupta, MD",
  "TX - Sachdev, Atul",
  "BAB Chiropractic PC dba Staggs Chiropractic",
  "Dr Kimberly Trainer",
  "The Training Room",
  "Keys Development",
  "Resources For Human Development",
  "Harshad G. Shah, MD, dbaThe Eye Institute",
  "Real Life Counseling",
  "Some Other Place Pediatrics",
];

describe("environment rules: test, QA, demo, sandbox, dev, staging and training entries", () => {
  test.each([
    // Hosts (names as the national lists publish them).
    ["https://fhir.qa.welligent.com/fhir/insight/248/r4", null, "host-qa", "qa"],
    ["https://fhirqa.maximeyes.com/api/qa11/R4", "Klamath Eye Center", "host-qa", "fhirqa"],
    ["https://fhirtest.jrmc.org/FHIR", "Jefferson Regional Medical Center - Test", "host-test", "fhirtest"],
    ["https://testfhir.njhealth.org/FHIR", null, "host-test", "testfhir"],
    ["https://fhirapitest.naiacorp.net/fhir/dhit/1/r4", null, "host-test", "fhirapitest"],
    ["https://ehrwebtst.duvoisin.us/fhir", null, "host-test", "ehrwebtst"],
    ["https://test01portal.springhill.org/FHIR", null, "host-test", "test01portal"],
    ["https://fhir-test.csn.health/gs-fhir-domain-server/fhir-api/r4", null, "host-test", "test"],
    ["https://demo.kodjin.com/fhir", null, "host-demo", "demo"],
    ["https://fastplusdemo.citiustech.com:8280/bulka", null, "host-demo", "fastplusdemo"],
    ["https://af22sandbox.fhirapi.athenahealth.com/demo22a-mlAPIServer/fhir/r4", null, "host-sandbox", "af22sandbox"],
    ["https://fhir-usa.sbx.unify.chbase.com", null, "host-sandbox", "sbx"],
    ["https://revolutionehrdev.dynamicfhir.com/fhir/dhit/a/r4", null, "host-dev", "revolutionehrdev"],
    ["https://api-datamanager.development.carecloud.com:8081/api/fhir/R4", null, "host-dev", "development"],
    ["https://fhir.prostage.allscriptscloud.com/fhirroute/fhir/ZH170100D1", null, "host-staging", "prostage"],
    // Paths.
    ["https://fhir.fhirpoint.open.allscripts.com/fhirroute/fhir/10128970-TEST", null, "path-test", "TEST"],
    ["https://fhir.fhirpoint.open.allscripts.com/fhirroute/open/a03test", null, "path-test", "a03test"],
    ["https://api.azaleahealth.com/fhir/R4/testing-client-network", null, "path-test", "testing"],
    ["https://api.azaleahealth.com/fhir/R4/sales-demo-network", null, "path-demo", "demo"],
    ["https://fhir.fhirpoint.open.allscripts.com/fhirroute/fhir/Sandbox", null, "path-demo", "Sandbox"],
    ["https://fg93b2lt5i.execute-api.us-east-1.amazonaws.com/dev/tenant/sitetenant", null, "path-dev", "dev"],
    // Names.
    ["https://api.platform.athenahealth.com/fhir/r4", "A - Test Clinic", "name-test", "Test"],
    ["https://api.platform.athenahealth.com/fhir/r4", "TEST - WYOMING", "name-test", "TEST"],
    ["https://h.example.org/fhir", "A03Test", "name-test", "A03Test"],
    ["https://h.example.org/fhir", "testing123", "name-test", "testing123"],
    ["https://h.example.org/fhir", "Northwell Health QA184", "name-qa", "QA184"],
    ["https://h.example.org/fhir", "Medhost General Hospital - Demo01", "name-demo", "Demo01"],
    ["https://app.meldrx.com/api/fhir/8c3aab4f", "Epic Sandbox", "name-sandbox", "Sandbox"],
    ["https://h.example.org/fhir", "Sandbox - Training", "name-sandbox", "Sandbox"],
    ["https://40.71.37.243/FHIR", "Touchworks Dev", "name-dev", "Dev"],
    ["https://h.example.org/fhir", "Northwell DEV 18.4 Azure", "name-dev", "DEV"],
    ["https://h.example.org/fhir", "EYEMDEMR-DEV SERVER", "name-dev", "DEV"],
    ["https://h.example.org/fhir", "Roswell Park - Development", "name-dev", "Development"],
    ["https://h.example.org/fhir", "Nexus Staging Environment", "name-staging", "Staging"],
    ["https://h.example.org/fhir", "Train_Unity Health Care Inc", "name-training", "Train"],
    ["https://h.example.org/fhir", "Sample Client 001", "name-sample", "Sample Client"],
    // Placeholder organizations.
    ["https://h.example.org/fhir", "zzzzzzz", "name-placeholder", "zzzzzzz"],
    ["https://h.example.org/fhir", "Practice Name", "name-placeholder", "Practice Name"],
    ["https://h.example.org/fhir", "fake org", "name-placeholder", "fake"],
    ["https://h.example.org/fhir", "Fake practice", "name-placeholder", "Fake"],
    ["https://h.example.org/fhir", "afasdfadf", "name-placeholder", "afasdfadf"],
    ["https://h.example.org/fhir", "Invite Portal (to be thrown away)", "name-placeholder", "to be thrown away"],
    ["http://developer.carepaths.com/1072640-201954/api", "zusk not a real company", "name-placeholder", "not a real"],
    ["http://developer.carepaths.com/1084636-115646/api", "Some Orgs", "name-placeholder", "Some Orgs"],
    ["http://developer.carepaths.com/1084734-134253/api", "Another Orgsss", "name-placeholder", "Another Orgsss"],
    ["http://developer.carepaths.com/1086190-163959/api", "here we go again", "name-placeholder", "here we go again"],
    ["http://developer.carepaths.com/testme/api", "testme", "name-placeholder", "testme"],
    [
      "https://fhir.fhirpoint.open.allscripts.com/fhirroute/fhir/NSLIJTMPT",
      "NSLIJ Template",
      "name-placeholder",
      "Template",
    ],
    // Words glued to another word or to digits (the national lists' names and hosts).
    ["https://app.meldrx.com/api/fhir/2ed76f05-7d48-47e4-abdb-934bd9c59bc6", "testepic", "name-test", "testepic"],
    ["https://app.meldrx.com/api/fhir/8d09d1de-497b-4a29-8f34-6f4b09ee582b", "testcerner", "name-test", "testcerner"],
    ["https://app.meldrx.com/api/fhir/dec945fe-5b4d-471b-9c7d-36628ede973e", "SaratTest", "name-test", "Test"],
    ["http://developer.carepaths.com/zzzz/api", "ZZTEST", "name-test", "ZZTEST"],
    ["https://h.example.org/fhir/r4", "athenahealthtest", "name-test", "athenahealthtest"],
    ["https://api.practicefusion.com/fhir/r4/v1/575f7623", "PFInternalTestUseOnly - Brandon Hong", "name-test", "Test"],
    ["https://h.example.org/fhirroute/fhir/10", "PSTest1", "name-test", "Test1"],
    ["https://h.example.org/fhir", "APS003STest", "name-test", "Test"],
    ["https://h.example.org/fhir", "BG TESTg2g2", "name-test", "TESTg2g2"],
    ["https://h.example.org/fhir", "CTCA TESTM FHIR", "name-test", "TESTM"],
    ["https://h.example.org/fhir", "DallasTest Practice", "name-test", "Test"],
    ["https://h.example.org/fhir", "senthiltest0105", "name-test", "senthiltest0105"],
    ["https://h.example.org/fhir", "testorg", "name-test", "testorg"],
    ["https://h.example.org/fhir", "Tester Practice", "name-test", "Tester"],
    ["https://scm16testps1.nmhs.net/fhir", null, "host-test", "scm16testps1"],
    ["https://suntstfhirvip.cmc-nh.org/FHIR", "Catholic Medical Center", "host-test", "suntstfhirvip"],
    ["https://v2qatw17-pm15.open.allscripts.com/FHIR", "V2qatw17-pm15", "host-qa", "v2qatw17"],
    ["https://optumdevtw17pm15.open.allscripts.com/FHIR", "Optum Development", "host-dev", "optumdevtw17pm15"],
    ["https://ciepdevtw.veradigm.com/FHIR", "Veradigm Health Plans", "host-dev", "ciepdevtw"],
    ["https://fhir.fhirpoint.open.allscripts.com/fhirroute/fhir/PEHRsandDEV", "Veradigm Connect", "path-dev", "DEV"],
    ["https://fhrduscvmap22.cloud.athenahealth.com:9443/demoAPIServer/fhir/r4", "SB_V22", "path-demo", "demo"],
    ["https://jbosstrnpapp02.vhpads.com:9443/ahgtraining_mmAPIServer/fhir/r4", "Self", "path-training", "ahgtraining"],
    // Words no rule read before, and a word in another position.
    ["https://fhir.pc1.hos.allscriptscloud.com/FHIR", "Phoenix Children's Hospital - Mock", "name-test", "Mock"],
    ["https://mock-fhir.methodisthospital.org/FHIR", "Methodist Hospital of Southern California", "host-test", "mock"],
    ["https://secure.server.fire.ly/r4", "Firely Secure Example REST Endpoint", "name-example", "Example"],
    ["https://select.nextech-api.com/api/r4", "Example Practice", "name-example", "Example"],
    [
      "https://ehifire.ehiconnect.com/fhir/dhit/ambulatorypracticeexample1/r4",
      null,
      "path-demo",
      "ambulatorypracticeexample1",
    ],
    ["http://developer.carepaths.com/1553909-104346/api", "ONC Testing", "name-test", "Testing"],
  ])("%s %p → %s (found %p)", (url, name, expected, found) => {
    expect(environmentMatch(url, name)).toEqual({
      rule: expected,
      code: ENVIRONMENT_RULES.find((r) => r.id === expected)!.code,
      found,
    });
  });

  test.each([
    // Real places and names with a rule's letters inside, or the word in another sense.
    ["https://fhir.demopolisclinic.example/r4", "Demopolis Family Practice"],
    // The top-level label is the registry's, not the server's name.
    ["https://fhir.hospital.test/r4", "General Hospital"],
    ["https://fhir.example.org/r4", "Testa Family Medicine"],
    ["https://fhir.example.org/r4", "Sandbox Pediatrics"],
    ["https://fhir.example.org/r4", "MI - Dream Sleep Testing"],
    ["https://fhir.example.org/r4", "SC - Regional Health and Testing Center"],
    ["https://fhir.example.org/r4", "MI - ELEVATE ATHLETIC TRAINING, LLC"],
    ["https://fhir.example.org/r4", "The Training Room"],
    ["https://fhir.example.org/r4", "CA - Dev Mishra M.D."],
    ["https://fhir.example.org/r4", "Lorven Child and Family Development"],
    ["https://fhir.example.org/r4", "Gastrointestinal Associates"],
    ["https://fhir.example.org/r4", "Lompoc Valley Medical Center"],
    ["https://fhir.example.org/r4", "Pocono Medical Center"],
    ["https://fhir.example.org/r4", "Dr. Qazi Sachdev"],
    ["https://fhir.example.org/r4", "Sample Chiropractic"],
    ["https://fhir.example.org/r4", "Latest Health"],
    ["https://fhir.example.org/r4", "Protestant Hospital"],
    ["https://fhir.example.org/r4", null],
    // Hosts and paths.
    ["https://mtrestapis-live01.stagnes.org/fhir", "St Agnes"],
    ["https://developer.carepaths.com/1083726-104746/api", "Carepaths Practice"],
    ["https://fhirprod.lompocvmc.com/FHIR", "Lompoc Valley"],
    ["https://latest.example.com/fhir", null],
    ["https://contest.example.com/fhir", null],
    ["https://drsachdev.example.com/fhir", null],
    ["https://fhir.backstage.example.com/fhir", null],
    ["https://app.meldrx.com/api/fhir/js62qa55", null],
    ["https://fhir.devonhealth.example/r4", null],
    ["https://fhir.example.org/api/FHIR/R4/developmental-pediatrics", null],
    ["https://www.westchesterinstituteforhumandevelopment.example/fhir", null],
    // fhir + prod + EV (Evansville): St Vincent Evansville's production server.
    ["https://fhirprodev.asc.hos.allscriptscloud.com/R4/fhir-Prod", "St Vincent Evansville Hospital Inc - EV01"],
    ["https://fhirprodev.asc.hos.allscriptscloud.com/fhir", "St Vincent Evansville Hospital Inc - EV01"],
    // Real names the glued-word and camel-case rules must not catch (most from the national lists).
    ...MUST_STAY_PRODUCTION.map((name) => ["https://fhir.example.org/r4", name] as const),
  ])("%s %p stays production", (url, name) => {
    expect(environmentMatch(url, name)).toBeNull();
  });

  test("data:audit's list of real names with a rule's letters stays production, each alone", () => {
    for (const name of PRODUCTION_NAMES)
      expect([name, environmentMatch("https://fhir.example.org/r4", name)]).toEqual([name, null]);
  });

  test("host and path rules come before name rules; the first rule in table order wins", () => {
    expect(rule("https://fhirtest.numc.edu//FHIR", "Nassau Health Care Corporation Test")).toBe("host-test");
    expect(rule("https://developer.carepaths.com/test/api", "Test Site")).toBe("path-test");
  });

  test("docs/api.md names every rule by its id", () => {
    const docs = readFileSync(join(import.meta.dir, "../../docs/api.md"), "utf8");
    const section = docs.slice(docs.indexOf("### Environment"));
    for (const { id } of ENVIRONMENT_RULES) expect(section).toContain(`\`${id}\``);
  });
});

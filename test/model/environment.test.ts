import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ENVIRONMENT_RULES, environmentMatch } from "../../src/model/environment";

const rule = (url: string, name: string | null = null) => environmentMatch(url, name)?.rule ?? null;

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
  ])("%s %p stays production", (url, name) => {
    expect(environmentMatch(url, name)).toBeNull();
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

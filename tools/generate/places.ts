/**
 * The 56 USPS codes the generated dataset uses (50 states, DC, PR, GU, VI, AS, MP), weighted
 * roughly by population (millions, with a floor so every territory appears even in a small
 * dataset), each with a few real cities and their three-digit ZIP prefix.
 */
export interface StatePlaces {
  code: string;
  name: string;
  weight: number;
  cities: readonly (readonly [city: string, zip3: string])[];
}

export const STATES: readonly StatePlaces[] = [
  {
    code: "AL",
    name: "Alabama",
    weight: 5.1,
    cities: [
      ["Birmingham", "352"],
      ["Montgomery", "361"],
      ["Huntsville", "358"],
      ["Mobile", "366"],
    ],
  },
  {
    code: "AK",
    name: "Alaska",
    weight: 0.7,
    cities: [
      ["Anchorage", "995"],
      ["Fairbanks", "997"],
      ["Juneau", "998"],
    ],
  },
  {
    code: "AZ",
    name: "Arizona",
    weight: 7.4,
    cities: [
      ["Phoenix", "850"],
      ["Tucson", "857"],
      ["Mesa", "852"],
      ["Flagstaff", "860"],
    ],
  },
  {
    code: "AR",
    name: "Arkansas",
    weight: 3.0,
    cities: [
      ["Little Rock", "722"],
      ["Fayetteville", "727"],
      ["Jonesboro", "724"],
    ],
  },
  {
    code: "CA",
    name: "California",
    weight: 39.0,
    cities: [
      ["Los Angeles", "900"],
      ["San Diego", "921"],
      ["San José", "951"],
      ["San Francisco", "941"],
      ["Sacramento", "958"],
      ["Fresno", "937"],
      ["Oakland", "946"],
      ["La Cañada Flintridge", "910"],
    ],
  },
  {
    code: "CO",
    name: "Colorado",
    weight: 5.9,
    cities: [
      ["Denver", "802"],
      ["Colorado Springs", "809"],
      ["Aurora", "800"],
      ["Boulder", "803"],
    ],
  },
  {
    code: "CT",
    name: "Connecticut",
    weight: 3.6,
    cities: [
      ["Hartford", "061"],
      ["New Haven", "065"],
      ["Stamford", "069"],
    ],
  },
  {
    code: "DE",
    name: "Delaware",
    weight: 1.0,
    cities: [
      ["Wilmington", "198"],
      ["Dover", "199"],
      ["Newark", "197"],
    ],
  },
  {
    code: "FL",
    name: "Florida",
    weight: 22.0,
    cities: [
      ["Miami", "331"],
      ["Tampa", "336"],
      ["Orlando", "328"],
      ["Jacksonville", "322"],
      ["Tallahassee", "323"],
      ["Gainesville", "326"],
    ],
  },
  {
    code: "GA",
    name: "Georgia",
    weight: 11.0,
    cities: [
      ["Atlanta", "303"],
      ["Savannah", "314"],
      ["Augusta", "309"],
      ["Macon", "312"],
    ],
  },
  {
    code: "HI",
    name: "Hawaii",
    weight: 1.4,
    cities: [
      ["Honolulu", "968"],
      ["Hilo", "967"],
      ["Kailua", "967"],
    ],
  },
  {
    code: "ID",
    name: "Idaho",
    weight: 2.0,
    cities: [
      ["Boise", "837"],
      ["Idaho Falls", "834"],
      ["Coeur d'Alene", "838"],
    ],
  },
  {
    code: "IL",
    name: "Illinois",
    weight: 12.5,
    cities: [
      ["Chicago", "606"],
      ["Peoria", "616"],
      ["Springfield", "627"],
      ["Rockford", "611"],
      ["Naperville", "605"],
    ],
  },
  {
    code: "IN",
    name: "Indiana",
    weight: 6.8,
    cities: [
      ["Indianapolis", "462"],
      ["Fort Wayne", "468"],
      ["Evansville", "477"],
      ["South Bend", "466"],
    ],
  },
  {
    code: "IA",
    name: "Iowa",
    weight: 3.2,
    cities: [
      ["Des Moines", "503"],
      ["Cedar Rapids", "524"],
      ["Iowa City", "522"],
    ],
  },
  {
    code: "KS",
    name: "Kansas",
    weight: 2.9,
    cities: [
      ["Wichita", "672"],
      ["Topeka", "666"],
      ["Overland Park", "662"],
    ],
  },
  {
    code: "KY",
    name: "Kentucky",
    weight: 4.5,
    cities: [
      ["Louisville", "402"],
      ["Lexington", "405"],
      ["Bowling Green", "421"],
    ],
  },
  {
    code: "LA",
    name: "Louisiana",
    weight: 4.6,
    cities: [
      ["New Orleans", "701"],
      ["Baton Rouge", "708"],
      ["Shreveport", "711"],
      ["Lafayette", "705"],
    ],
  },
  {
    code: "ME",
    name: "Maine",
    weight: 1.4,
    cities: [
      ["Portland", "041"],
      ["Bangor", "044"],
      ["Lewiston", "042"],
    ],
  },
  {
    code: "MD",
    name: "Maryland",
    weight: 6.2,
    cities: [
      ["Baltimore", "212"],
      ["Bethesda", "208"],
      ["Annapolis", "214"],
      ["Columbia", "210"],
    ],
  },
  {
    code: "MA",
    name: "Massachusetts",
    weight: 7.0,
    cities: [
      ["Boston", "021"],
      ["Worcester", "016"],
      ["Springfield", "011"],
      ["Cambridge", "021"],
    ],
  },
  {
    code: "MI",
    name: "Michigan",
    weight: 10.0,
    cities: [
      ["Detroit", "482"],
      ["Grand Rapids", "495"],
      ["Ann Arbor", "481"],
      ["Lansing", "489"],
    ],
  },
  {
    code: "MN",
    name: "Minnesota",
    weight: 5.7,
    cities: [
      ["Minneapolis", "554"],
      ["Saint Paul", "551"],
      ["Rochester", "559"],
      ["Duluth", "558"],
    ],
  },
  {
    code: "MS",
    name: "Mississippi",
    weight: 2.9,
    cities: [
      ["Jackson", "392"],
      ["Gulfport", "395"],
      ["Tupelo", "388"],
    ],
  },
  {
    code: "MO",
    name: "Missouri",
    weight: 6.2,
    cities: [
      ["Kansas City", "641"],
      ["St. Louis", "631"],
      ["Springfield", "658"],
      ["Columbia", "652"],
    ],
  },
  {
    code: "MT",
    name: "Montana",
    weight: 1.1,
    cities: [
      ["Billings", "591"],
      ["Missoula", "598"],
      ["Bozeman", "597"],
    ],
  },
  {
    code: "NE",
    name: "Nebraska",
    weight: 2.0,
    cities: [
      ["Omaha", "681"],
      ["Lincoln", "685"],
      ["Kearney", "688"],
    ],
  },
  {
    code: "NV",
    name: "Nevada",
    weight: 3.2,
    cities: [
      ["Las Vegas", "891"],
      ["Reno", "895"],
      ["Henderson", "890"],
    ],
  },
  {
    code: "NH",
    name: "New Hampshire",
    weight: 1.4,
    cities: [
      ["Manchester", "031"],
      ["Concord", "033"],
      ["Lebanon", "037"],
    ],
  },
  {
    code: "NJ",
    name: "New Jersey",
    weight: 9.3,
    cities: [
      ["Newark", "071"],
      ["Hackensack", "076"],
      ["New Brunswick", "089"],
      ["Camden", "081"],
    ],
  },
  {
    code: "NM",
    name: "New Mexico",
    weight: 2.1,
    cities: [
      ["Albuquerque", "871"],
      ["Santa Fe", "875"],
      ["Las Cruces", "880"],
      ["Española", "875"],
    ],
  },
  {
    code: "NY",
    name: "New York",
    weight: 19.6,
    cities: [
      ["New York", "100"],
      ["Brooklyn", "112"],
      ["Buffalo", "142"],
      ["Rochester", "146"],
      ["Albany", "122"],
      ["Syracuse", "132"],
    ],
  },
  {
    code: "NC",
    name: "North Carolina",
    weight: 10.8,
    cities: [
      ["Charlotte", "282"],
      ["Raleigh", "276"],
      ["Durham", "277"],
      ["Greensboro", "274"],
      ["Asheville", "288"],
    ],
  },
  {
    code: "ND",
    name: "North Dakota",
    weight: 0.8,
    cities: [
      ["Fargo", "581"],
      ["Bismarck", "585"],
      ["Grand Forks", "582"],
    ],
  },
  {
    code: "OH",
    name: "Ohio",
    weight: 11.8,
    cities: [
      ["Columbus", "432"],
      ["Cleveland", "441"],
      ["Cincinnati", "452"],
      ["Toledo", "436"],
      ["Akron", "443"],
    ],
  },
  {
    code: "OK",
    name: "Oklahoma",
    weight: 4.0,
    cities: [
      ["Oklahoma City", "731"],
      ["Tulsa", "741"],
      ["Norman", "730"],
    ],
  },
  {
    code: "OR",
    name: "Oregon",
    weight: 4.2,
    cities: [
      ["Portland", "972"],
      ["Eugene", "974"],
      ["Salem", "973"],
      ["Bend", "977"],
    ],
  },
  {
    code: "PA",
    name: "Pennsylvania",
    weight: 13.0,
    cities: [
      ["Philadelphia", "191"],
      ["Pittsburgh", "152"],
      ["Allentown", "181"],
      ["Harrisburg", "171"],
      ["Hershey", "170"],
    ],
  },
  {
    code: "RI",
    name: "Rhode Island",
    weight: 1.1,
    cities: [
      ["Providence", "029"],
      ["Warwick", "028"],
      ["Newport", "028"],
    ],
  },
  {
    code: "SC",
    name: "South Carolina",
    weight: 5.4,
    cities: [
      ["Columbia", "292"],
      ["Charleston", "294"],
      ["Greenville", "296"],
    ],
  },
  {
    code: "SD",
    name: "South Dakota",
    weight: 0.9,
    cities: [
      ["Sioux Falls", "571"],
      ["Rapid City", "577"],
      ["Aberdeen", "574"],
    ],
  },
  {
    code: "TN",
    name: "Tennessee",
    weight: 7.1,
    cities: [
      ["Nashville", "372"],
      ["Memphis", "381"],
      ["Knoxville", "379"],
      ["Chattanooga", "374"],
    ],
  },
  {
    code: "TX",
    name: "Texas",
    weight: 30.0,
    cities: [
      ["Houston", "770"],
      ["Dallas", "752"],
      ["San Antonio", "782"],
      ["Austin", "787"],
      ["El Paso", "799"],
      ["Fort Worth", "761"],
      ["Lubbock", "794"],
    ],
  },
  {
    code: "UT",
    name: "Utah",
    weight: 3.4,
    cities: [
      ["Salt Lake City", "841"],
      ["Provo", "846"],
      ["Ogden", "844"],
    ],
  },
  {
    code: "VT",
    name: "Vermont",
    weight: 0.65,
    cities: [
      ["Burlington", "054"],
      ["Montpelier", "056"],
      ["Rutland", "057"],
    ],
  },
  {
    code: "VA",
    name: "Virginia",
    weight: 8.7,
    cities: [
      ["Richmond", "232"],
      ["Norfolk", "235"],
      ["Arlington", "222"],
      ["Roanoke", "240"],
      ["Charlottesville", "229"],
    ],
  },
  {
    code: "WA",
    name: "Washington",
    weight: 7.8,
    cities: [
      ["Seattle", "981"],
      ["Spokane", "992"],
      ["Tacoma", "984"],
      ["Bellevue", "980"],
    ],
  },
  {
    code: "WV",
    name: "West Virginia",
    weight: 1.8,
    cities: [
      ["Charleston", "253"],
      ["Morgantown", "265"],
      ["Huntington", "257"],
    ],
  },
  {
    code: "WI",
    name: "Wisconsin",
    weight: 5.9,
    cities: [
      ["Milwaukee", "532"],
      ["Madison", "537"],
      ["Green Bay", "543"],
      ["Eau Claire", "547"],
    ],
  },
  {
    code: "WY",
    name: "Wyoming",
    weight: 0.6,
    cities: [
      ["Cheyenne", "820"],
      ["Casper", "826"],
      ["Jackson", "830"],
    ],
  },
  { code: "DC", name: "District of Columbia", weight: 0.7, cities: [["Washington", "200"]] },
  {
    code: "PR",
    name: "Puerto Rico",
    weight: 3.2,
    cities: [
      ["San Juan", "009"],
      ["Bayamón", "009"],
      ["Ponce", "007"],
      ["Mayagüez", "006"],
      ["Caguas", "007"],
    ],
  },
  {
    code: "GU",
    name: "Guam",
    weight: 0.3,
    cities: [
      ["Hagåtña", "969"],
      ["Tamuning", "969"],
      ["Dededo", "969"],
    ],
  },
  {
    code: "VI",
    name: "U.S. Virgin Islands",
    weight: 0.3,
    cities: [
      ["Charlotte Amalie", "008"],
      ["Christiansted", "008"],
    ],
  },
  {
    code: "AS",
    name: "American Samoa",
    weight: 0.3,
    cities: [
      ["Pago Pago", "967"],
      ["Tafuna", "967"],
    ],
  },
  {
    code: "MP",
    name: "Northern Mariana Islands",
    weight: 0.3,
    cities: [
      ["Saipan", "969"],
      ["Tinian", "969"],
    ],
  },
];

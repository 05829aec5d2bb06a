/**
 * Whether a 10-digit NPI's last digit is its check digit: the Luhn formula over the first nine
 * digits prefixed with 80840 (the NPI's health-industry card issuer prefix, CMS's "NPI check
 * digit" rule), which adds 24 to the doubled-digit sum.
 */
export function npiCheckDigitValid(npi: string): boolean {
  if (!/^\d{10}$/.test(npi)) return false;
  let sum = 24;
  for (let i = 0; i < 9; i++) {
    let digit = npi.charCodeAt(8 - i) - 48;
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return (10 - (sum % 10)) % 10 === npi.charCodeAt(9) - 48;
}

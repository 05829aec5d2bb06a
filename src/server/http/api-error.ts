/** An error the API answers with its own envelope, status and code. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const validationError = (message: string) => new ApiError(400, "VALIDATION_ERROR", message);

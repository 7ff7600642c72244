package dev.umbra.platform.web;

/** An error a client caused and can read about: answered as {@code application/problem+json} with its status. */
public class ProblemException extends RuntimeException {

    private final int status;
    private final String title;

    public ProblemException(int status, String title, String detail) {
        super(detail);
        this.status = status;
        this.title = title;
    }

    public static ProblemException notFound(String detail) {
        return new ProblemException(404, "Not Found", detail);
    }

    public static ProblemException forbidden(String detail) {
        return new ProblemException(403, "Forbidden", detail);
    }

    public static ProblemException conflict(String detail) {
        return new ProblemException(409, "Conflict", detail);
    }

    /** The request is well formed but breaks a rule of the domain. */
    public static ProblemException unprocessable(String detail) {
        return new ProblemException(422, "Unprocessable Content", detail);
    }

    public static ProblemException badRequest(String detail) {
        return new ProblemException(400, "Bad Request", detail);
    }

    public int status() {
        return status;
    }

    public String title() {
        return title;
    }
}

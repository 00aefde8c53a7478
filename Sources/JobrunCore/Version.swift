/// jobrun's own version, recorded in saved plans and reports.
public enum JobrunVersion {
    public static let current = "0.1.0"
}

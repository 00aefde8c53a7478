internal import CCurl

/// An engine's side of a ``SharedRateBudget``: its transfers' write callbacks take each piece of
/// body from the budget, and a piece the budget refuses pauses its transfer (the callback returns
/// `CURL_WRITEFUNC_PAUSE`: libcurl keeps the piece, stops reading that transfer's socket, and
/// delivers the same piece again once the transfer is resumed). The loop resumes paused transfers
/// when the budget has bytes again, and sleeps in its poll no longer than until then; a paused
/// transfer's socket is not polled, so the loop does not spin while it waits. Confined to the
/// engine's thread.
final class Pacer {
    let budget: SharedRateBudget
    /// Transfers paused by the budget, oldest first: the first to be resumed.
    private var paused: [Transfer] = []

    init(budget: SharedRateBudget) { self.budget = budget }

    /// Whether a piece of `count` bytes of `transfer` may be delivered now. When not, the
    /// transfer is marked paused and queued to be resumed; its callback must return
    /// `CURL_WRITEFUNC_PAUSE`.
    func admit(_ count: Int, of transfer: Transfer) -> Bool {
        if budget.take(count) { return true }
        // libcurl keeps what arrives for a paused transfer without calling back; queued once all the same.
        if !transfer.isPausedByBudget { paused.append(transfer) }
        transfer.isPausedByBudget = true
        return false
    }

    /// `request` as a paced transfer makes it: its receive buffer no larger than the budget's
    /// burst (libcurl's default, 16 KiB, is never larger), so that a piece borrows at most one
    /// burst.
    func paced(_ request: TransferRequest) -> TransferRequest {
        guard let size = request.receiveBufferSize, size > budget.capacity else { return request }
        var paced = request
        paced.receiveBufferSize = max(16 << 10, Int(clamping: budget.capacity))
        return paced
    }

    /// Resumes paused transfers, oldest first, while the budget has bytes. `curl_easy_pause`
    /// delivers the kept piece at once, so the budget is taken (or the transfer paused again, at
    /// the back of the queue) before the next is resumed; a transfer paused again waits for the
    /// next refill. Returns the transfers whose resume failed (their callback aborted the
    /// piece), with libcurl's code: the caller ends them.
    func resumeDue(api: CurlAPI) -> [(Transfer, CURLcode)] {
        var failed: [(Transfer, CURLcode)] = []
        var waiting = paused.count
        while waiting > 0, budget.hasBytes() {
            waiting -= 1
            let transfer = paused.removeFirst()
            transfer.resumedByBudget()
            let code = api.easyPause(transfer.easy, CURLPAUSE_CONT)
            if code != CURLE_OK { failed.append((transfer, code)) }
        }
        return failed
    }

    /// `limit` milliseconds, or less while a transfer waits: until the budget has bytes again,
    /// rounded up (waking early would only turn the loop for nothing).
    func pollTimeout(_ limit: Int32) -> Int32 {
        guard !paused.isEmpty else { return limit }
        let wait = budget.timeUntilBytes()
        guard wait > .zero else { return 0 }
        let (seconds, attoseconds) = wait.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(min(Int64(limit), milliseconds))
    }

    /// Forgets a transfer that ends, paused or not.
    func remove(_ transfer: Transfer) {
        guard transfer.isPausedByBudget else { return }
        paused.removeAll { $0 === transfer }
    }
}

public import PushMockCore

/// An added delay before the answer: fixed, or drawn from a distribution with the rule's
/// seeded generator (so runs repeat).
///
/// JSON: `{"fixedMs": 250}`, `{"uniformMs": [50, 400]}`, `{"normalMs": {"mean": 200, "stddev": 50}}`,
/// `{"exponentialMs": {"mean": 100}}`.
public struct Latency: Sendable, Codable, Hashable {
    public var fixedMs: Double?
    public var uniformMs: [Double]?
    public var normalMs: Normal?
    public var exponentialMs: Exponential?

    /// The JSON members this type reads (a fault rule refuses others).
    static let memberNames = ["fixedMs", "uniformMs", "normalMs", "exponentialMs"]

    public struct Normal: Sendable, Codable, Hashable {
        public var mean: Double
        public var stddev: Double

        public init(mean: Double, stddev: Double) {
            self.mean = mean
            self.stddev = stddev
        }
    }

    public struct Exponential: Sendable, Codable, Hashable {
        public var mean: Double

        public init(mean: Double) { self.mean = mean }
    }

    public init(fixedMs: Double? = nil, uniformMs: [Double]? = nil, normalMs: Normal? = nil, exponentialMs: Exponential? = nil) {
        self.fixedMs = fixedMs
        self.uniformMs = uniformMs
        self.normalMs = normalMs
        self.exponentialMs = exponentialMs
    }

    public static func fixed(_ milliseconds: Double) -> Latency { Latency(fixedMs: milliseconds) }

    /// Checks that exactly one form is given and its numbers make sense.
    public func validate() throws(FaultRuleError) {
        let forms = [fixedMs != nil, uniformMs != nil, normalMs != nil, exponentialMs != nil].filter { $0 }.count
        guard forms == 1 else { throw FaultRuleError("latency: give exactly one of fixedMs, uniformMs, normalMs, exponentialMs") }
        let range = InputLimits.delayRangeText
        if let fixedMs, !InputLimits.isDelayMilliseconds(fixedMs) { throw FaultRuleError("latency: fixedMs must be \(range)") }
        if let uniformMs,
            uniformMs.count != 2 || !uniformMs.allSatisfy(InputLimits.isDelayMilliseconds) || uniformMs[1] < uniformMs[0]
        {
            throw FaultRuleError("latency: uniformMs is [min, max] with min ≤ max, each \(range)")
        }
        if let normalMs, !InputLimits.isDelayMilliseconds(normalMs.mean) || !InputLimits.isDelayMilliseconds(normalMs.stddev) {
            throw FaultRuleError("latency: normalMs needs mean and stddev of \(range)")
        }
        if let exponentialMs, exponentialMs.mean <= 0 || !InputLimits.isDelayMilliseconds(exponentialMs.mean) {
            throw FaultRuleError("latency: exponentialMs needs 0 < mean, \(range)")
        }
    }

    /// Draws a delay.
    public func sample(using random: inout FastRandom) -> Duration {
        let milliseconds: Double
        if let fixedMs {
            milliseconds = fixedMs
        } else if let uniformMs, uniformMs.count == 2 {
            milliseconds = uniformMs[0] + (uniformMs[1] - uniformMs[0]) * random.unitInterval()
        } else if let normalMs {
            // Box–Muller; negative draws are clamped to zero.
            let u1 = max(random.unitInterval(), .leastNonzeroMagnitude)
            let u2 = random.unitInterval()
            let z = (-2 * Self.logarithm(u1)).squareRoot() * Self.cosine(2 * .pi * u2)
            milliseconds = max(0, normalMs.mean + normalMs.stddev * z)
        } else if let exponentialMs {
            milliseconds = -exponentialMs.mean * Self.logarithm(max(1 - random.unitInterval(), .leastNonzeroMagnitude))
        } else {
            milliseconds = 0
        }
        // Distribution tails can exceed the validated parameters; a delay never exceeds the cap.
        return .microseconds(Int64(min(milliseconds, InputLimits.longestDelayMilliseconds) * 1000))
    }

    // Foundation-free elementary functions (enough precision for delays).
    static func logarithm(_ x: Double) -> Double {
        // ln(x) = 2 * atanh((x-1)/(x+1)), series converges for x > 0.
        var exponent = 0.0
        var value = x
        while value > 2 { value /= 2.718281828459045; exponent += 1 }
        while value < 0.5 { value *= 2.718281828459045; exponent -= 1 }
        let y = (value - 1) / (value + 1)
        var term = y
        var sum = 0.0
        var n = 1.0
        for _ in 0..<40 {
            sum += term / n
            term *= y * y
            n += 2
        }
        return 2 * sum + exponent
    }

    static func cosine(_ x: Double) -> Double {
        var value = x.truncatingRemainder(dividingBy: 2 * .pi)
        if value > .pi { value -= 2 * .pi }
        if value < -.pi { value += 2 * .pi }
        var term = 1.0
        var sum = 1.0
        for n in 1..<20 {
            // (2n - 1) * 2n in Double, exactly as in Int: spelled so that the type checker does
            // not try every numeric overload of the mixed literal expression.
            let twoN = Double(2 * n)
            term *= -value * value / ((twoN - 1) * twoN)
            sum += term
        }
        return sum
    }
}

extension FastRandom {
    /// A uniform draw in [0, 1).
    public mutating func unitInterval() -> Double {
        Double(next() >> 11) * (1.0 / 9_007_199_254_740_992.0)
    }
}

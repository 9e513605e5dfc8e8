import PushMockCore
import PushMockRecording
import PushMockSimulation

/// A control request in the pipeline: never recorded, never faulted; a long poll answers later.
struct ControlExchange: EndpointExchange {
    let request: HTTPRequestMessage
    var reply: HTTPReply?
    var deferredReply: (@Sendable () async -> HTTPReply)?

    var isAccepted: Bool { false }
    var faultFacts: FaultFacts { FaultFacts() }
}

/// `/_pushmock/…`: the control API as a pipeline endpoint. Its whole work is its state step.
struct ControlEndpoint: GatewayEndpoint {
    let api: ControlAPI

    static var faultPlatform: Platform? { nil }

    func parse(_ request: consuming HTTPRequestMessage, in context: PipelineContext) -> ControlExchange {
        ControlExchange(request: request)
    }

    func answerInjected(_ action: FaultAction, _ exchange: inout ControlExchange, in context: PipelineContext) {}

    func applyState(_ exchange: inout ControlExchange, in context: PipelineContext) {
        switch api.handle(exchange.request) {
        case .now(let reply):
            exchange.reply = reply
        case .later(let compute):
            // Answered once `compute` finishes; the slot waits meanwhile.
            exchange.deferredReply = compute
            exchange.reply = HTTPReply(.noResponse)
        }
    }

    func record(_ exchange: ControlExchange, in context: PipelineContext, latencyMicroseconds: Int64, into record: inout ExchangeRecord)
        -> Bool
    {
        false
    }
}

import SwiftASN1
import X509

extension Certificate {
    /// The certificate's DER encoding, the form TLS stacks take certificates in.
    func derEncoded() throws(PKIError) -> [UInt8] {
        var serializer = DER.Serializer()
        do {
            try serializer.serialize(self)
        } catch {
            throw PKIError.certificateCreationFailed.with(detail: "cannot serialise certificate: \(error)")
        }
        return serializer.serializedBytes
    }
}

/**
 * VIES protocol samples copied byte for byte from docs/vies-protocol.md (the reference shipped
 * with the project brief), each with the source and label the reference gives it. The `§S`
 * numbers are that document's source list.
 */

/** [verbatim request body, checkVat NL 854265259B01 (§S1 Recruitee/viex lookup.json, 2023-08-11)] */
export const CHECK_VAT_REQUEST = `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:ec.europa.eu:taxud:vies:services:checkVat:types">
        <soapenv:Header/>
        <soapenv:Body>
          <urn:checkVat>
            <urn:countryCode>NL</urn:countryCode>
            <urn:vatNumber>854265259B01</urn:vatNumber>
          </urn:checkVat>
        </soapenv:Body>
      </soapenv:Envelope>`;

/** [verbatim success response, HTTP 200 (§S1 Recruitee/viex lookup.json, 2023-08-11)] */
export const CHECK_VAT_VALID = `<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Header/><env:Body><ns2:checkVatResponse xmlns:ns2="urn:ec.europa.eu:taxud:vies:services:checkVat:types"><ns2:countryCode>NL</ns2:countryCode><ns2:vatNumber>854265259B01</ns2:vatNumber><ns2:requestDate>2023-08-11+02:00</ns2:requestDate><ns2:valid>true</ns2:valid><ns2:name>GITHUB B.V.</ns2:name><ns2:address>
VIJZELSTRAAT 00068
1017HL AMSTERDAM
</ns2:address></ns2:checkVatResponse></env:Body></env:Envelope>`;

/** [verbatim not-registered response (§S1 Recruitee/viex lookup_invalid.json, 2023-08-11)] */
export const CHECK_VAT_INVALID = `<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Header/><env:Body><ns2:checkVatResponse xmlns:ns2="urn:ec.europa.eu:taxud:vies:services:checkVat:types"><ns2:countryCode>NL</ns2:countryCode><ns2:vatNumber>9999999</ns2:vatNumber><ns2:requestDate>2023-08-11+02:00</ns2:requestDate><ns2:valid>false</ns2:valid><ns2:name>---</ns2:name><ns2:address>---</ns2:address></ns2:checkVatResponse></env:Body></env:Envelope>`;

/** [verbatim request body, checkVatApprox with requester (§S1 Recruitee/viex, 2023-08-11)] */
export const CHECK_VAT_APPROX_REQUEST = `<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:urn="urn:ec.europa.eu:taxud:vies:services:checkVat:types">
        <soapenv:Header/>
        <soapenv:Body>
          <urn:checkVatApprox>
            <urn:countryCode>NL</urn:countryCode>
            <urn:vatNumber>854265259B01</urn:vatNumber>
            <urn:requesterCountryCode>IE</urn:requesterCountryCode>
            <urn:requesterVatNumber>6388047V</urn:requesterVatNumber>
          </urn:checkVatApprox>
        </soapenv:Body>
      </soapenv:Envelope>`;

/** [verbatim checkVatApprox success with consultation number, HTTP 200 (§S1 Recruitee/viex lookup_with_requester_vat.json, 2023-08-11)] */
export const CHECK_VAT_APPROX_VALID = `<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Header/><env:Body><ns2:checkVatApproxResponse xmlns:ns2="urn:ec.europa.eu:taxud:vies:services:checkVat:types"><ns2:countryCode>NL</ns2:countryCode><ns2:vatNumber>854265259B01</ns2:vatNumber><ns2:requestDate>2023-08-11+02:00</ns2:requestDate><ns2:valid>true</ns2:valid><ns2:traderName>GITHUB B.V.</ns2:traderName><ns2:traderCompanyType>---</ns2:traderCompanyType><ns2:traderAddress>
VIJZELSTRAAT 00068
1017HL AMSTERDAM
</ns2:traderAddress><ns2:requestIdentifier>WAPIAAAAYnkVx97D</ns2:requestIdentifier></ns2:checkVatApproxResponse></env:Body></env:Envelope>`;

/** [verbatim checkVatApprox not-registered, empty requestIdentifier (§S1 Recruitee/viex lookup_invalid_with_requester_vat.json)] */
export const CHECK_VAT_APPROX_INVALID = `<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Header/><env:Body><ns2:checkVatApproxResponse xmlns:ns2="urn:ec.europa.eu:taxud:vies:services:checkVat:types"><ns2:countryCode>NL</ns2:countryCode><ns2:vatNumber>9999999</ns2:vatNumber><ns2:requestDate>2023-08-11+02:00</ns2:requestDate><ns2:valid>false</ns2:valid><ns2:traderName>---</ns2:traderName><ns2:traderCompanyType>---</ns2:traderCompanyType><ns2:traderAddress>---</ns2:traderAddress><ns2:requestIdentifier></ns2:requestIdentifier></ns2:checkVatApproxResponse></env:Body></env:Envelope>`;

/** [published sample, ES checkVatApprox with trader matching, pretty-printed (§S8 infiniteloopltd/CheckVatNumberSpain README.md)] */
export const CHECK_VAT_APPROX_ES_MATCHING = `<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/">
    <env:Header/>
    <env:Body>
        <ns2:checkVatApproxResponse xmlns:ns2="urn:ec.europa.eu:taxud:vies:services:checkVat:types">
            <ns2:countryCode>ES</ns2:countryCode>
            <ns2:vatNumber>B83891812</ns2:vatNumber>
            <ns2:requestDate>2023-01-12+01:00</ns2:requestDate>
            <ns2:valid>true</ns2:valid>
            <ns2:traderName>Rodrisa Automoviles</ns2:traderName>
            <ns2:traderCompanyType></ns2:traderCompanyType>
            <ns2:traderStreet>Avda. Reina Victoria</ns2:traderStreet>
            <ns2:traderPostcode>28430</ns2:traderPostcode>
            <ns2:traderCity>Madrid</ns2:traderCity>
            <ns2:traderNameMatch>1</ns2:traderNameMatch>
            <ns2:traderCompanyTypeMatch>3</ns2:traderCompanyTypeMatch>
            <ns2:traderStreetMatch>1</ns2:traderStreetMatch>
            <ns2:traderPostcodeMatch>1</ns2:traderPostcodeMatch>
            <ns2:traderCityMatch>2</ns2:traderCityMatch>
            <ns2:requestIdentifier></ns2:requestIdentifier>
        </ns2:checkVatApproxResponse>
    </env:Body>
</env:Envelope>`;

/** [verbatim fault body, Content-Length 221 (§S1 Recruitee/viex lookup_requests_limit_reached.json)] */
export const FAULT_MS_MAX_CONCURRENT_REQ = `<env:Envelope xmlns:env="http://schemas.xmlsoap.org/soap/envelope/"><env:Header/><env:Body><env:Fault><faultcode>env:Server</faultcode><faultstring>MS_MAX_CONCURRENT_REQ</faultstring></env:Fault></env:Body></env:Envelope>`;

/** [published sample, REST check-vat-number success (VP §6, §S23 MichelMichels/ViesSharp README.md)] */
export const REST_CHECK_VALID = `{
  "countryCode": "BE",
  "vatNumber": "0244142664",
  "requestDate": "2024-04-23T08:04:10.919Z",
  "valid": true,
  "requestIdentifier": "",
  "name": "NV OR De Vlaamse Radio- en Televisieomroeporganisatie",
  "address": "Auguste Reyerslaan 52\\n1030 Schaarbeek",
  "traderName": "---",
  "traderStreet": "---",
  "traderPostalCode": "---",
  "traderCity": "---",
  "traderCompanyType": "---",
  "traderNameMatch": "NOT_PROCESSED",
  "traderStreetMatch": "NOT_PROCESSED",
  "traderPostalCodeMatch": "NOT_PROCESSED",
  "traderCityMatch": "NOT_PROCESSED",
  "traderCompanyTypeMatch": "NOT_PROCESSED"
}`;

/** [verbatim REST error, HTTP 200 (VP §6, §S24 jofme/D365FinanceToolbox#73 and §S16)] */
export const REST_MS_UNAVAILABLE = `{
  "actionSucceed" : false,
  "errorWrappers" : [ {
    "error" : "MS_UNAVAILABLE"
  } ]
}`;
